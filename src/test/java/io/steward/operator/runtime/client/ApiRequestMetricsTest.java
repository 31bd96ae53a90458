package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.steward.operator.support.LoopbackHttp;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Requests as the API server would name them, timed by Micrometer's OkHttp listener, against a loopback server. */
class ApiRequestMetricsTest {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private HttpServer server;
  private OkHttpClient client;

  @BeforeEach
  void start() {
    server = LoopbackHttp.answering(exchange -> exchange.getRequestURI().getPath().endsWith("/missing") ? 404 : 200);
    registry.config().meterFilter(ApiRequestMetrics.histogram());
    client = new OkHttpClient.Builder().eventListener(ApiRequestMetrics.listener(registry)).build();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', textBlock = """
      GET    | /apis/apps/v1/namespaces/a/deployments/x           | get              | deployments.apps           | /apis/apps/v1/namespaces/{namespace}/deployments/{name}
      GET    | /apis/apps/v1/deployments?labelSelector=x          | list             | deployments.apps           | /apis/apps/v1/deployments
      GET    | /apis/steward.io/v1alpha1/namespaces/a/webapps?watch=true&resourceVersion=5 | watch | webapps.steward.io | /apis/steward.io/v1alpha1/namespaces/{namespace}/webapps
      PATCH  | /apis/steward.io/v1alpha1/namespaces/a/webapps/x/status | patch       | webapps.steward.io/status  | /apis/steward.io/v1alpha1/namespaces/{namespace}/webapps/{name}/status
      POST   | /api/v1/namespaces/a/events                        | create           | events                     | /api/v1/namespaces/{namespace}/events
      PUT    | /apis/coordination.k8s.io/v1/namespaces/a/leases/l | update           | leases.coordination.k8s.io | /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}
      DELETE | /api/v1/namespaces/a/services                      | deletecollection | services                   | /api/v1/namespaces/{namespace}/services
      GET    | /api/v1/namespaces/a                               | get              | namespaces                 | /api/v1/namespaces/{name}
      PUT    | /api/v1/namespaces/a/finalize                      | update           | namespaces/finalize        | /api/v1/namespaces/{name}/finalize
      GET    | /version                                           | get              | ''                         | other
      """)
  void namesTheVerbAndResourceAsTheApiServerDoes(String method, String pathAndQuery, String verb, String resource,
      String uri) {
    assertThat(parse(method, pathAndQuery)).isEqualTo(new RequestInfo(verb, resource, uri));
  }

  @Test
  void objectsOfOneKindShareOneSeriesPerVerbAndCode() throws IOException {
    for (String name : List.of("a", "b", "c", "missing")) {
      send("GET", "/apis/apps/v1/namespaces/ns-" + name + "/deployments/" + name);
    }
    send("PATCH", "/apis/apps/v1/namespaces/ns-a/deployments/a");

    Collection<Meter> timers = registry.find(ApiRequestMetrics.NAME).meters();
    assertThat(timers).hasSize(3);
    Timer gets = registry.get(ApiRequestMetrics.NAME).tags("verb", "get", "resource", "deployments.apps",
        "status", "200", "method", "GET", "uri", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}").timer();
    assertThat(gets.count()).isEqualTo(3);
    assertThat(registry.get(ApiRequestMetrics.NAME).tags("verb", "get", "status", "404").timer().count()).isEqualTo(1);
    assertThat(registry.get(ApiRequestMetrics.NAME).tags("verb", "patch", "status", "200").timer().count()).isEqualTo(1);
    assertThat(registry.scrape()).as("latency buckets for histogram_quantile")
        .containsPattern("steward_api_requests_seconds_bucket\\{.*status=\"200\".*verb=\"get\"");
    assertThat(timers).allSatisfy(timer -> assertThat(timer.getId().getTags())
        .noneSatisfy(tag -> assertThat(tag.getValue()).contains("ns-a")));
  }

  private static RequestInfo parse(String method, String pathAndQuery) {
    return RequestInfo.of(new Request.Builder().url("https://127.0.0.1:6443" + pathAndQuery)
        .method(method, method.equals("GET") ? null : RequestBody.create(new byte[0], MediaType.get("application/json")))
        .build());
  }

  private void send(String method, String path) throws IOException {
    RequestBody body = method.equals("GET") ? null : RequestBody.create("{}", MediaType.get("application/json"));
    try (Response response = client.newCall(new Request.Builder()
        .url("http://127.0.0.1:" + server.getAddress().getPort() + path).method(method, body).build()).execute()) {
      response.body().bytes();
    }
  }
}
