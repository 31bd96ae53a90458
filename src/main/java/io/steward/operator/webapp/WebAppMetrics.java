package io.steward.operator.webapp;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1Condition;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.runtime.cache.CachedObjectCounts;
import io.steward.operator.runtime.cache.KindInformer;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the cached WebApps look like, for dashboards and alerts: {@code steward_webapps{phase}} and
 * {@code steward_webapps_stalled{reason}}. Every replica counts its own cache, so a standby reports
 * the same as the leader; aggregate with max, not sum.
 */
public final class WebAppMetrics {
  static final List<String> PHASES = Arrays.stream(WebAppStatus.Phase.values()).map(Enum::name).toList();
  static final List<String> STALLED_REASONS = List.of(WebAppConditions.Reasons.RESOURCE_CONFLICT,
      WebAppConditions.Reasons.INVALID_SPEC, WebAppConditions.Reasons.PROGRESS_DEADLINE_EXCEEDED);

  private final CachedObjectCounts<WebApp> byPhase;

  public WebAppMetrics(MeterRegistry registry, KindInformer<WebApp> webApps) {
    this(registry, webApps::addEventHandler);
  }

  WebAppMetrics(MeterRegistry registry, Consumer<ResourceEventHandler<WebApp>> webApps) {
    byPhase = CachedObjectCounts.register(registry, "steward_webapps",
        "WebApps by status.phase; one without a status yet counts as Pending", "phase", PHASES, webApps,
        WebAppMetrics::phase);
    CachedObjectCounts.register(registry, "steward_webapps_stalled",
        "WebApps whose Stalled condition is True, by its reason", "reason", STALLED_REASONS, webApps,
        WebAppMetrics::stalledReason);
  }

  static String phase(WebApp webApp) {
    WebAppStatus.Phase phase = webApp.getStatus().phase();
    return (phase == null ? WebAppStatus.Phase.Pending : phase).name();
  }

  static String stalledReason(WebApp webApp) {
    V1Condition condition = Conditions.find(webApp.getStatus().conditionsOrEmpty(), WebAppConditions.STALLED);
    return condition != null && "True".equals(condition.getStatus()) ? condition.getReason() : null;
  }

  public int withPhase(WebAppStatus.Phase phase) {
    return byPhase.count(phase.name());
  }
}
