package io.steward.operator.runtime.election;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What this replica knows about leadership, kept from the elector's hooks (client-java's
 * LeaderElector has no public isLeader()). Exported as controller-runtime's
 * {@code leader_election_master_status} and shown at {@code /actuator/leader}. The hand-overs it
 * saw on the Lease are {@code steward_leader_handovers_total{name,reason}}: counted by every replica
 * that watches the Lease, so they outlive the replica that lost it.
 */
public final class Leadership {
  private final String identity;
  private volatile boolean leading;
  private volatile Instant acquiredAt;
  private volatile String observedHolder;
  private final AtomicInteger transitionsSeen = new AtomicInteger();
  private final Counter released;
  private final Counter expired;

  public Leadership(String identity, String leaseName, MeterRegistry registry) {
    this.identity = identity;
    Gauge.builder("leader_election_master_status", () -> leading ? 1 : 0)
        .description("Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.")
        .tag("name", leaseName).register(registry);
    released = handovers(registry, leaseName, "released",
        "the holder released the Lease (a graceful stop) and another replica took it");
    expired = handovers(registry, leaseName, "expired",
        "another replica took the Lease from a holder whose term ran out (a crash, a pause, a partition)");
  }

  private static Counter handovers(MeterRegistry registry, String leaseName, String reason, String what) {
    return Counter.builder("steward_leader_handovers").description("Changes of the Lease's holder seen on its watch; "
        + reason + ": " + what).tags("name", leaseName, "reason", reason).register(registry);
  }

  /** The Lease's holder changed from {@code before} (empty when it had been released) to {@code after}. */
  public void holderChanged(String before, String after) {
    (before == null || before.isEmpty() ? released : expired).increment();
  }

  public void startedLeading() {
    acquiredAt = Instant.now();
    leading = true;
  }

  public void stoppedLeading() {
    leading = false;
  }

  public void observedLeader(String holder) {
    if (holder != null && !holder.equals(observedHolder)) {
      if (observedHolder != null) {
        transitionsSeen.incrementAndGet();
      }
      observedHolder = holder;
    }
  }

  public String identity() {
    return identity;
  }

  public boolean isLeading() {
    return leading;
  }

  public Instant acquiredAt() {
    return acquiredAt;
  }

  public String observedHolder() {
    return observedHolder;
  }

  public int transitionsSeen() {
    return transitionsSeen.get();
  }
}
