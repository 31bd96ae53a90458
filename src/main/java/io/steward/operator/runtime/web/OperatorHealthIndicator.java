package io.steward.operator.runtime.web;

import io.steward.operator.runtime.election.Leadership;
import io.steward.operator.runtime.lifecycle.OperatorLifecycle;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** Liveness: the leader elector and, on the leader, the controller's thread are alive. */
public final class OperatorHealthIndicator implements HealthIndicator {
  private final OperatorLifecycle lifecycle;
  private final Leadership leadership;

  public OperatorHealthIndicator(OperatorLifecycle lifecycle, Leadership leadership) {
    this.lifecycle = lifecycle;
    this.leadership = leadership;
  }

  @Override
  public Health health() {
    return (lifecycle.isAlive() ? Health.up() : Health.down())
        .withDetail("identity", leadership.identity()).withDetail("leading", leadership.isLeading()).build();
  }
}
