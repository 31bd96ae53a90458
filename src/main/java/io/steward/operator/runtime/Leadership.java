package io.steward.operator.runtime;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What this replica knows about leadership, kept from the elector's hooks (client-java's
 * LeaderElector has no public isLeader()). Exported as controller-runtime's
 * {@code leader_election_master_status} and shown at {@code /actuator/leader}.
 */
public final class Leadership {
  private final String identity;
  private volatile boolean leading;
  private volatile Instant acquiredAt;
  private volatile String observedHolder;
  private final AtomicInteger transitionsSeen = new AtomicInteger();

  public Leadership(String identity, String leaseName, MeterRegistry registry) {
    this.identity = identity;
    Gauge.builder("leader_election_master_status", () -> leading ? 1 : 0)
        .description("Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.")
        .tag("name", leaseName).register(registry);
  }

  void startedLeading() {
    acquiredAt = Instant.now();
    leading = true;
  }

  void stoppedLeading() {
    leading = false;
  }

  void observedLeader(String holder) {
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
