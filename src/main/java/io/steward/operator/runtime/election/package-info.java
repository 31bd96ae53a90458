/**
 * Leader election and the fence around it: {@link io.steward.operator.runtime.election.LeaderElection}
 * runs client-java's {@code LeaderElector} through a {@link io.steward.operator.runtime.election.FencedLeaseLock},
 * which decides this replica's {@link io.steward.operator.runtime.election.LeaseTerm} by the monotonic
 * clock; {@link io.steward.operator.runtime.election.WriteFence} refuses every write outside a term.
 * Uses {@code support} and {@code client}.
 */
package io.steward.operator.runtime.election;
