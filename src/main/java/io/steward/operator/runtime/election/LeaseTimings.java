package io.steward.operator.runtime.election;

import java.time.Duration;

/**
 * A Lease's timings, client-go's three: how long a record stands once written, how long its holder
 * keeps trying to renew before giving up, and how often it renews (and a standby tries to take it).
 */
public record LeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
  /** client-go's, controller-runtime's and the Java Operator SDK's defaults. */
  public static final LeaseTimings DEFAULTS = new LeaseTimings(Duration.ofSeconds(15), Duration.ofSeconds(10),
      Duration.ofSeconds(2));
}
