package io.steward.operator.runtime.lifecycle;

/** What to do after this replica lost the Lease and stopped working (by default: exit non-zero). */
@FunctionalInterface
public interface LeadershipLostHandler {
  void leadershipLost();
}
