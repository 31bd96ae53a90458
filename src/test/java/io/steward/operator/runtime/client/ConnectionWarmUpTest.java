package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection the warm-up opens is the one the informers' first requests then use, and the start
 * does not wait for it.
 */
class ConnectionWarmUpTest {
  private final List<String> requests = new CopyOnWriteArrayList<>();
  /** Released when the server may answer. */
  private final AtomicReference<CountDownLatch> answer = new AtomicReference<>(new CountDownLatch(0));
  private HttpServer server;

  @BeforeEach
  void serve() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      awaitQuietly(answer.get());
      // The client's port names the connection a request came on.
      requests.add(exchange.getRequestURI().getPath() + " from port " + exchange.getRemoteAddress().getPort());
      String body = exchange.getRequestURI().getPath().startsWith("/version")
          ? "{\"major\":\"1\",\"minor\":\"37\",\"gitVersion\":\"v1.37.2\"}"
          : "{\"apiVersion\":\"v1\",\"kind\":\"NamespaceList\",\"items\":[]}";
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void theConnectionItOpensServesTheRequestsThatFollow() throws Exception {
    ApiClient client = new ApiClient(new OkHttpClient());
    client.setBasePath("http://127.0.0.1:" + server.getAddress().getPort());

    ConnectionWarmUp.begin(client).get(10, TimeUnit.SECONDS);
    // As the informers' client is made: from the same OkHttp client, so with its connection pool.
    ApiClient informers = new ApiClient(client.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
    informers.setBasePath(client.getBasePath());
    new CoreV1Api(informers).listNamespace().execute();

    assertThat(requests).hasSize(2);
    String port = requests.get(0).substring(requests.get(0).indexOf(" from port "));
    assertThat(requests).containsExactly("/version/" + port, "/api/v1/namespaces" + port);
  }

  @Test
  void theStartDoesNotWaitForTheServersAnswer() throws Exception {
    answer.set(new CountDownLatch(1));
    ApiClient client = new ApiClient(new OkHttpClient());
    client.setBasePath("http://127.0.0.1:" + server.getAddress().getPort());

    CompletableFuture<Void> ended = ConnectionWarmUp.begin(client);

    assertThat(ended).isNotDone();
    answer.get().countDown();
    ended.get(10, TimeUnit.SECONDS);
    assertThat(requests).singleElement().asString().startsWith("/version");
  }
}
