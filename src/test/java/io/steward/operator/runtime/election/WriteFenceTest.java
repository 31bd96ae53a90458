package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.operator.support.LoopbackHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What leaves the process through the fence, seen by a loopback HTTP server that records every request. */
class WriteFenceTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final LeaseTerm term = LeaseTerm.forLease(Duration.ofSeconds(4), Duration.ofSeconds(1), nanos::get);
  private final List<String> received = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private OkHttpClient client;
  private WriteFence fence;

  @BeforeEach
  void start() {
    server = LoopbackHttp.answering(exchange -> {
      received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
      return 200;
    });
    fence = new WriteFence(term, true, new SimpleMeterRegistry());
    client = new OkHttpClient.Builder().addNetworkInterceptor(fence).build();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void outsideATermNoWriteIsSentButReadsAndLeaseWritesAre() throws IOException {
    assertThatThrownBy(() -> send("PATCH", "/apis/steward.io/v1alpha1/namespaces/a/webapps/x/status"))
        .isInstanceOf(WriteFence.FencedWriteException.class);
    assertThatThrownBy(() -> send("POST", "/api/v1/namespaces/a/events")).isInstanceOf(WriteFence.FencedWriteException.class);
    send("GET", "/apis/apps/v1/namespaces/a/deployments/x");
    send("PUT", "/apis/coordination.k8s.io/v1/namespaces/a/leases/steward-leader");
    assertThat(received).containsExactly("GET /apis/apps/v1/namespaces/a/deployments/x",
        "PUT /apis/coordination.k8s.io/v1/namespaces/a/leases/steward-leader");
    assertThat(fence.refusals()).isEqualTo(2);
  }

  @Test
  void insideATermWritesGoOutAndStopTheMomentItEnds() throws IOException {
    term.renewed(term.now());
    send("PUT", "/apis/apps/v1/namespaces/a/deployments/x");
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());
    assertThatThrownBy(() -> send("DELETE", "/api/v1/namespaces/a/services/x"))
        .isInstanceOf(WriteFence.FencedWriteException.class);
    assertThat(received).containsExactly("PUT /apis/apps/v1/namespaces/a/deployments/x");
  }

  @Test
  void switchedOffItSendsEverything() throws IOException {
    OkHttpClient unguarded = new OkHttpClient.Builder()
        .addNetworkInterceptor(new WriteFence(term, false, new SimpleMeterRegistry())).build();
    try (Response response = unguarded.newCall(request("POST", "/api/v1/namespaces/a/services")).execute()) {
      assertThat(response.code()).isEqualTo(200);
    }
    assertThat(received).hasSize(1);
  }

  @Test
  void aHandOverWaitsForTheWriteOnItsWayAndNothingPassesAfterTheTermEnds() throws Exception {
    LoopbackHttp.HeldPath slow = new LoopbackHttp.HeldPath(server, "/slow");
    term.renewed(term.now());
    Thread writer = new Thread(() -> {
      try {
        send("PUT", "/slow");
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    writer.start();
    slow.awaitArrival();
    term.end();
    assertThat(fence.awaitWritesAnswered(Duration.ofMillis(200))).as("a write is still unanswered").isFalse();
    assertThatThrownBy(() -> send("PUT", "/apis/apps/v1/namespaces/a/deployments/x"))
        .isInstanceOf(WriteFence.FencedWriteException.class);
    slow.answer();
    assertThat(fence.awaitWritesAnswered(Duration.ofSeconds(5))).isTrue();
    writer.join();
  }

  private void send(String method, String path) throws IOException {
    try (Response response = client.newCall(request(method, path)).execute()) {
      assertThat(response.code()).isEqualTo(200);
    }
  }

  private Request request(String method, String path) {
    RequestBody body = method.equals("GET") ? null : RequestBody.create("{}", MediaType.get("application/json"));
    return new Request.Builder().url("http://127.0.0.1:" + server.getAddress().getPort() + path).method(method, body).build();
  }
}
