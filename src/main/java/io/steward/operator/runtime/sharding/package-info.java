/**
 * Sharded mode: the objects split into buckets, each owned through a Lease of its own.
 * {@link io.steward.operator.runtime.sharding.BucketOwnership} decides which buckets this replica
 * holds, {@link io.steward.operator.runtime.sharding.BucketGate} lets only their requests run, each
 * write judged by its bucket's term ({@link io.steward.operator.runtime.sharding.BucketTerms}), and
 * {@link io.steward.operator.runtime.sharding.BucketInformers} caches only their objects. Uses
 * {@code support}, {@code cache} and {@code election}.
 */
package io.steward.operator.runtime.sharding;
