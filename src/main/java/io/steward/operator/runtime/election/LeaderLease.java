package io.steward.operator.runtime.election;

/** The Lease the replicas compete for: where it is, and its timings. */
public record LeaderLease(String name, String namespace, LeaseTimings timings) {}
