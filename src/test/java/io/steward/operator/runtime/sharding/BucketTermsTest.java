package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.operator.runtime.election.LeaseTerm;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.support.LoopbackHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each write judged by the term of its bucket, as the fence sends it to a loopback server. */
class BucketTermsTest {
  private final BucketTerms terms = new BucketTerms(4, Duration.ofSeconds(4), Duration.ofSeconds(1));
  private final List<String> received = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private OkHttpClient client;

  @BeforeEach
  void start() {
    server = LoopbackHttp.answering(exchange -> {
      received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
      return 200;
    });
    client = new OkHttpClient.Builder()
        .addNetworkInterceptor(new WriteFence(terms, true, new SimpleMeterRegistry())).build();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aWriteGoesOutOnlyInsideTheTermOfItsOwnBucket() {
    LeaseTerm owned = terms.termToGrant(1);
    owned.renewed(owned.now());
    BucketTerms.within(1, () -> send("PATCH", "/apis/apps/v1/namespaces/a/deployments/x"));
    assertThatThrownBy(() -> BucketTerms.within(2, () -> send("PATCH", "/apis/apps/v1/namespaces/a/deployments/y")))
        .hasCauseInstanceOf(WriteFence.FencedWriteException.class);
    assertThat(received).containsExactly("PATCH /apis/apps/v1/namespaces/a/deployments/x");
  }

  @Test
  void aWriteWithNoBucketBoundIsRefusedButEventsAndLeasesGoOut() {
    LeaseTerm owned = terms.termToGrant(0);
    owned.renewed(owned.now());
    assertThatThrownBy(() -> send("POST", "/api/v1/namespaces/a/services"))
        .hasCauseInstanceOf(WriteFence.FencedWriteException.class);
    send("POST", "/api/v1/namespaces/a/events");
    send("PATCH", "/api/v1/namespaces/a/events/x.123");
    send("PUT", "/apis/coordination.k8s.io/v1/namespaces/a/leases/steward-bucket-3");
    assertThat(received).containsExactly("POST /api/v1/namespaces/a/events", "PATCH /api/v1/namespaces/a/events/x.123",
        "PUT /apis/coordination.k8s.io/v1/namespaces/a/leases/steward-bucket-3");
  }

  @Test
  void theBindingBelongsToTheThreadThatMadeIt() throws Exception {
    LeaseTerm owned = terms.termToGrant(3);
    owned.renewed(owned.now());
    CompletableFuture<Void> elsewhere = BucketTerms.within(3,
        () -> CompletableFuture.runAsync(() -> send("POST", "/api/v1/namespaces/a/services")));
    assertThat(elsewhere).failsWithin(Duration.ofSeconds(5));
    assertThat(received).isEmpty();
  }

  @Test
  void anEndedTermIsNotRevivedAndTakingTheBucketAgainGrantsAFreshOne() {
    LeaseTerm first = terms.termToGrant(2);
    first.renewed(first.now());
    first.end();
    first.renewed(first.now()); // a renewal that was in flight when the bucket was let go
    assertThat(first.isValid()).isFalse();
    LeaseTerm second = terms.termToGrant(2);
    assertThat(second).isNotSameAs(first);
    second.renewed(second.now());
    assertThat(terms.term(2).isValid()).isTrue();
    assertThat(terms.termToGrant(2)).as("a valid term is kept").isSameAs(second);
  }

  @Test
  void releasingABucketWaitsOnlyForItsOwnWrites() throws Exception {
    LoopbackHttp.HeldPath slow = new LoopbackHttp.HeldPath(server, "/slow");
    WriteFence fence = new WriteFence(terms, true, new SimpleMeterRegistry());
    client = new OkHttpClient.Builder().addNetworkInterceptor(fence).build();
    LeaseTerm zero = terms.termToGrant(0);
    zero.renewed(zero.now());
    LeaseTerm one = terms.termToGrant(1);
    one.renewed(one.now());
    Thread writer = new Thread(() -> BucketTerms.within(0, () -> send("PUT", "/slow")));
    writer.start();
    slow.awaitArrival();
    assertThat(fence.awaitWritesAnswered(one, Duration.ofMillis(100))).as("bucket 1 has nothing on its way").isTrue();
    zero.end();
    assertThat(fence.awaitWritesAnswered(zero, Duration.ofMillis(200))).isFalse();
    slow.answer();
    assertThat(fence.awaitWritesAnswered(zero, Duration.ofSeconds(5))).isTrue();
    writer.join();
  }

  private Void send(String method, String path) {
    RequestBody body = RequestBody.create("{}", MediaType.get("application/json"));
    Request request = new Request.Builder().url("http://127.0.0.1:" + server.getAddress().getPort() + path)
        .method(method, body).build();
    try (Response response = client.newCall(request).execute()) {
      assertThat(response.code()).isEqualTo(200);
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
