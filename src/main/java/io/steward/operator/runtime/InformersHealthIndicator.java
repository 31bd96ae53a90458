package io.steward.operator.runtime;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** Readiness: every informer has completed its first list, so this replica could lead at once. */
public final class InformersHealthIndicator implements HealthIndicator {
  private final InformerCaches informers;

  public InformersHealthIndicator(InformerCaches informers) {
    this.informers = informers;
  }

  @Override
  public Health health() {
    var unsynced = informers.unsynced();
    Health.Builder builder = unsynced.isEmpty() ? Health.up() : Health.outOfService().withDetail("unsynced", unsynced);
    return builder.withDetail("namespaces", informers.namespaces()).withDetail("webApps", informers.webAppCount()).build();
  }
}
