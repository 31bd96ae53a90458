package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.steward.operator.runtime.client.ApiServerConnection;
import io.steward.operator.runtime.client.OperatorClients;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Steward's ApiClient: found where client-java looks, and built so that a kubeconfig's token file or
 * exec plugin is read again; the only ApiClient and informer factory in the context. What a token
 * refresh sends is checked against a plain HTTP server on loopback that records the Authorization
 * headers (client behaviour only; the API server's side of a rotated token is LifecycleIT's).
 */
class ApiClientAutoConfigurationTest {
  @EnableConfigurationProperties(StewardProperties.class)
  static class Properties {}

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withUserConfiguration(Properties.class, TracingConfiguration.class, ClientConfiguration.class)
      // the write fence counts its refusals
      .withBean(io.micrometer.core.instrument.MeterRegistry.class, io.micrometer.core.instrument.simple.SimpleMeterRegistry::new);

  @Test
  void aConfiguredKubeconfigIsUsedByBothClients(@TempDir Path dir) throws Exception {
    Path kubeconfig = kubeconfig(dir, "https://127.0.0.1:6443", "token: abc");
    runner.withPropertyValues("steward.kubeconfig=" + kubeconfig).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBeanNamesForType(ApiClient.class)).containsExactly("apiClient");
      OperatorClients clients = context.getBean(OperatorClients.class);
      assertThat(clients.requests().getBasePath()).isEqualTo("https://127.0.0.1:6443");
      assertThat(clients.watches().getBasePath()).isEqualTo("https://127.0.0.1:6443");
      assertThat(clients.watches().getHttpClient().readTimeoutMillis()).as("watches have no read timeout").isZero();
      assertThat(clients.requests().getHttpClient().readTimeoutMillis()).isPositive();
      assertThat(context.getBeanNamesForType(io.kubernetes.client.informer.SharedInformerFactory.class))
          .containsExactly("sharedInformerFactory");
    });
  }

  @Test
  void theChainIsKubeconfigVariableThenHomeThenThePodsServiceAccount(@TempDir Path dir) throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Path noToken = dir.resolve("no-token");
    Duration refresh = Duration.ofMinutes(1);
    assertThatThrownBy(() -> ApiServerConnection.connect(null, null, home, refresh, noToken))
        .hasMessageContaining("No Kubernetes API server configured").hasMessageContaining("KUBECONFIG");
    assertThatThrownBy(() -> ApiServerConnection.connect(null, dir.resolve("missing").toString(), home, refresh, noToken))
        .hasMessage("KUBECONFIG names " + dir.resolve("missing") + ", which is not a file");

    Files.createDirectories(home.resolve(".kube"));
    Files.copy(kubeconfig(dir, "https://127.0.0.1:7001", "token: home"), home.resolve(".kube").resolve("config"));
    assertThat(ApiServerConnection.connect(null, "", home, refresh, noToken).getBasePath())
        .isEqualTo("https://127.0.0.1:7001");
    Path variable = kubeconfig(dir, "https://127.0.0.1:7002", "token: variable");
    assertThat(ApiServerConnection.connect(null, variable.toString(), home, refresh, noToken).getBasePath())
        .isEqualTo("https://127.0.0.1:7002");
    Path property = Files.copy(kubeconfig(dir, "https://127.0.0.1:7003", "token: property"), dir.resolve("property"));
    assertThat(ApiServerConnection.connect(property, variable.toString(), home, refresh, noToken).getBasePath())
        .isEqualTo("https://127.0.0.1:7003");
  }

  @Test
  void aRotatedTokenFileIsReadAgain(@TempDir Path dir) throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "first\n");
    assertReadAgainAfterTheRefreshPeriod(dir, "tokenFile: " + token, token);
  }

  @Test
  void aRefusedTokenIsReadAgainAtOnceNotAfterTheRefreshPeriod(@TempDir Path dir) throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "old");
    try (Recorder server = new Recorder()) {
      ApiClient client = ApiServerConnection.connect(kubeconfig(dir, server.url(), "tokenFile: " + token), null, null,
          Duration.ofHours(1), dir.resolve("no-token"));
      server.request(client);
      Files.writeString(token, "new");
      server.refuse = true;
      assertThatThrownBy(() -> server.request(client)).hasMessageContaining("401");
      server.refuse = false;
      server.request(client);
      assertThat(server.authorizations).containsExactly("Bearer old", "Bearer old", "Bearer new");
    }
  }

  @Test
  void anExecPluginRunsAgainForAFreshToken(@TempDir Path dir) throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "first");
    String exec = """
        exec:
                apiVersion: client.authentication.k8s.io/v1
                interactiveMode: Never
                command: sh
                args:
                  - -c
                  - printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%%s"}}' "$(cat %s)"
        """.formatted(token).stripTrailing();
    assertReadAgainAfterTheRefreshPeriod(dir, exec, token);
  }

  /** The token in {@code token} is sent, then, once the file changed and the refresh period passed, the new one. */
  private static void assertReadAgainAfterTheRefreshPeriod(Path dir, String user, Path token) throws Exception {
    try (Recorder server = new Recorder()) {
      ApiClient client = ApiServerConnection.connect(kubeconfig(dir, server.url(), user), null, null,
          Duration.ofSeconds(1), dir.resolve("no-token"));
      server.request(client);
      Files.writeString(token, "second");
      Thread.sleep(1_200);
      server.request(client);
      assertThat(server.authorizations).containsExactly("Bearer first", "Bearer second");
    }
  }

  private static Path kubeconfig(Path dir, String server, String user) throws Exception {
    Path file = Files.createTempFile(dir, "kubeconfig", "");
    Files.writeString(file, """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
        users:
          - name: u
            user:
              %s
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """.formatted(server, user));
    return file;
  }

  /** A plain HTTP server on loopback that answers every request with an empty namespace list, or 401. */
  private static final class Recorder implements AutoCloseable {
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    volatile boolean refuse;
    private final HttpServer server;

    Recorder() throws Exception {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/", exchange -> {
        authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
        if (refuse) {
          exchange.sendResponseHeaders(401, -1);
          exchange.close();
          return;
        }
        byte[] body = "{\"apiVersion\":\"v1\",\"kind\":\"NamespaceList\",\"items\":[]}".getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
      });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void request(ApiClient client) throws Exception {
      new CoreV1Api(client).listNamespace().execute();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
