package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.steward.operator.runtime.controller.Tracing;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.OtlpReceiver.Span;
import io.steward.operator.support.OtlpReceiver;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Traces, opt-in: with an OTLP endpoint configured, a reconcile of a new WebApp is one span with its
 * key, generation and result, and the API requests it sent are its children; requests outside a
 * reconcile (lists, watches, the Lease) are not traced. Without an endpoint nothing of tracing exists.
 */
@LocalClusterTest
class WebAppTracingIT {

  @Test
  void aReconcileIsOneSpanWithTheApiRequestsItSentAsChildren(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String ns = namespace.name();
    try (OtlpReceiver receiver = new OtlpReceiver();
        InProcessOperator operator = InProcessOperator.start(cluster, ns, "traced-" + ns, Map.of(
            "management.opentelemetry.tracing.export.otlp.endpoint", receiver.endpoint(),
            "management.tracing.sampling.probability", "1.0",
            "management.opentelemetry.tracing.export.schedule-delay", "200ms"))) {
      assertThat(operator.bean(Tracing.class).isOn()).isTrue();
      WebApps webApps = new WebApps(cluster.adminClient(), ns);
      webApps.create("traced", WebApps.spec("nginx:1.27", 1, 8080));
      String key = ns + "/traced";

      // The first pass creates the Deployment and the Service and writes the status.
      Span reconcile = await().atMost(Duration.ofSeconds(30)).until(() -> receiver.spans().stream()
          .filter(s -> key.equals(s.attribute("key")) && childrenOf(receiver.spans(), s).size() >= 3)
          .findFirst().orElse(null), s -> s != null);
      assertThat(reconcile.name()).isEqualTo("reconcile WebApp");
      assertThat(reconcile.parentSpanId()).isEmpty();
      assertThat(reconcile.attributes()).containsEntry("kind", "WebApp").containsEntry("generation", "1")
          .containsEntry("result", "success");
      assertThat(reconcile.resource()).containsEntry("service.name", "steward");

      List<Span> children = childrenOf(receiver.spans(), reconcile);
      assertThat(children).allSatisfy(child -> assertThat(child.traceId()).isEqualTo(reconcile.traceId()));
      assertThat(children).extracting(child -> child.attribute("verb") + " " + child.attribute("resource")
          + " " + child.attribute("status")).contains("create deployments.apps 201", "create services 201",
          "patch webapps.steward.io/status 200");
      assertThat(children).extracting(child -> child.attribute("uri"))
          .contains("/apis/apps/v1/namespaces/{namespace}/deployments");

      // Every traced API request belongs to a reconcile: the informers' lists and watches and the
      // Lease renewals, which run outside one, are not traced.
      List<Span> spans = receiver.spans();
      assertThat(spans).filteredOn(s -> s.attribute("verb") != null).isNotEmpty().allSatisfy(request ->
          assertThat(spans).anySatisfy(parent -> {
            assertThat(parent.spanId()).isEqualTo(request.parentSpanId());
            assertThat(parent.name()).isEqualTo("reconcile WebApp");
          }));
      assertThat(spans).noneMatch(s -> "watch".equals(s.attribute("verb")) || "list".equals(s.attribute("verb")));

      // Probes and scrapes of the management port start no trace, even with every trace sampled.
      HttpClient http = HttpClient.newHttpClient();
      for (String path : List.of("/actuator/health/readiness", "/actuator/prometheus")) {
        http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operator.port() + path)).build(),
            HttpResponse.BodyHandlers.discarding());
      }
      webApps.updateSpec("traced", spec -> spec.withReplicas(2));
      await().atMost(Duration.ofSeconds(30)).until(() -> receiver.spans().stream()
          .anyMatch(s -> key.equals(s.attribute("key")) && "2".equals(s.attribute("generation"))));
      assertThat(receiver.spans()).filteredOn(s -> s.parentSpanId().isEmpty())
          .allSatisfy(root -> assertThat(root.name()).isEqualTo("reconcile WebApp"));
    }
  }

  @Test
  void withoutAnEndpointNothingOfTracingIsThere(LocalCluster cluster, TestNamespace namespace) {
    Crds.installWebAppCrd(cluster.adminClient());
    String ns = namespace.name();
    try (InProcessOperator operator = InProcessOperator.start(cluster, ns, "untraced-" + ns, Map.of())) {
      assertThat(operator.bean(Tracing.class).isOn()).isFalse();
      assertThat(operator.hasBean(OpenTelemetry.class)).isFalse();
      assertThat(operator.hasBean(Tracer.class)).isFalse();
      assertThat(operator.hasBean(SpanExporter.class)).isFalse();
    }
  }

  private static List<Span> childrenOf(List<Span> spans, Span parent) {
    return spans.stream().filter(s -> s.parentSpanId().equals(parent.spanId())).toList();
  }
}
