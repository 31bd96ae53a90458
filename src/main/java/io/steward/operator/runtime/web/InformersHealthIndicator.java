package io.steward.operator.runtime.web;

import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.cache.KindInformer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Readiness: every informer has completed its first list, so this replica could lead at once, and
 * none has failed to list or watch for longer than its grace period (its cache would be going stale
 * while it looks synced).
 */
public final class InformersHealthIndicator implements HealthIndicator {
  private final Informers informers;
  private final String countName;
  private final KindInformer<?> counted;

  /** @param counted the kind whose object count the details show, as {@code countName} */
  public InformersHealthIndicator(Informers informers, String countName, KindInformer<?> counted) {
    this.informers = informers;
    this.countName = countName;
    this.counted = counted;
  }

  @Override
  public Health health() {
    var unsynced = informers.unsynced();
    var failing = informers.failing();
    Health.Builder builder = unsynced.isEmpty() && failing.isEmpty() ? Health.up() : Health.outOfService();
    if (!unsynced.isEmpty()) {
      builder.withDetail("unsynced", unsynced);
    }
    if (!failing.isEmpty()) {
      builder.withDetail("failing", failing);
    }
    return builder.withDetail("namespaces", informers.namespaces()).withDetail(countName, counted.size()).build();
  }
}
