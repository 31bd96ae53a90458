package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.operator.webapp.api.WebAppStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** WebApps by phase and stalled ones by reason, kept from informer events as a cache sees them. */
class WebAppMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<ResourceEventHandler<WebApp>> handlers = new ArrayList<>();
  private final WebAppMetrics metrics = new WebAppMetrics(registry, handlers::add);

  @Test
  void countsEachWebAppUnderItsCurrentPhaseOnly() {
    WebApp a = webApp("a", null, null);
    add(a);
    add(webApp("b", Phase.Ready, null));
    assertThat(gauge("steward_webapps", "phase", "Pending")).as("no status yet").isEqualTo(1);
    assertThat(gauge("steward_webapps", "phase", "Ready")).isEqualTo(1);

    WebApp aReady = webApp("a", Phase.Ready, null);
    update(a, aReady);
    WebApp aDegraded = webApp("a", Phase.Degraded, WebAppConditions.Reasons.RESOURCE_CONFLICT);
    update(aReady, aDegraded);
    // A re-list replays an update with the same state: counted once still.
    update(aDegraded, aDegraded);
    assertThat(gauge("steward_webapps", "phase", "Pending")).isZero();
    assertThat(gauge("steward_webapps", "phase", "Ready")).isEqualTo(1);
    assertThat(gauge("steward_webapps", "phase", "Degraded")).isEqualTo(1);
    assertThat(gauge("steward_webapps_stalled", "reason", "ResourceConflict")).isEqualTo(1);
    assertThat(metrics.withPhase(Phase.Degraded)).isEqualTo(1);

    delete(aDegraded);
    assertThat(gauge("steward_webapps", "phase", "Degraded")).isZero();
    assertThat(gauge("steward_webapps_stalled", "reason", "ResourceConflict")).isZero();
    assertThat(gauge("steward_webapps", "phase", "Ready")).isEqualTo(1);
  }

  @Test
  void everyPhaseAndStalledReasonHasASeriesFromTheStart() {
    for (Phase phase : Phase.values()) {
      assertThat(gauge("steward_webapps", "phase", phase.name())).isZero();
    }
    for (String reason : WebAppMetrics.STALLED_REASONS) {
      assertThat(gauge("steward_webapps_stalled", "reason", reason)).isZero();
    }
    assertThat(registry.find("steward_webapps").gauges()).hasSize(Phase.values().length);
  }

  @Test
  void sameNameInAnotherNamespaceIsAnotherWebApp() {
    add(webApp("a", Phase.Ready, null));
    WebApp other = webApp("a", Phase.Ready, null);
    other.getMetadata().namespace("other");
    add(other);
    assertThat(gauge("steward_webapps", "phase", "Ready")).isEqualTo(2);
  }

  private double gauge(String name, String tag, String value) {
    return registry.get(name).tag(tag, value).gauge().value();
  }

  private void add(WebApp webApp) {
    handlers.forEach(h -> h.onAdd(webApp));
  }

  private void update(WebApp before, WebApp after) {
    handlers.forEach(h -> h.onUpdate(before, after));
  }

  private void delete(WebApp webApp) {
    handlers.forEach(h -> h.onDelete(webApp, false));
  }

  private static WebApp webApp(String name, Phase phase, String stalledReason) {
    WebApp webApp = new WebApp().metadata(new V1ObjectMeta().namespace("ns").name(name));
    if (phase != null) {
      var conditions = stalledReason == null ? null
          : List.of(Conditions.condition(WebAppConditions.STALLED, true, stalledReason, "m", 1));
      webApp.status(new WebAppStatus(phase, 1L, 1, 1, 1, null, null, conditions));
    }
    return webApp;
  }
}
