package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.gson.JsonSyntaxException;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A connection lost in the middle of a response body, as when the API server stops: client-java
 * alone reports it as a payload it cannot parse; with {@link WholeResponseBodies} it is the failed
 * request it is.
 */
class WholeResponseBodiesTest {
  private ServerSocket server;
  private Thread serving;

  @BeforeEach
  void serveATruncatedBody() throws IOException {
    server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    serving = new Thread(() -> {
      while (!server.isClosed()) {
        try (Socket socket = server.accept()) {
          socket.getInputStream().read(new byte[8192]);
          OutputStream out = socket.getOutputStream();
          out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"
              + "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a").getBytes(StandardCharsets.UTF_8));
          out.flush();
        } catch (IOException e) {
          return;
        }
      }
    });
    serving.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    serving.join();
  }

  private ApiClient client(OkHttpClient http) {
    ApiClient client = new ApiClient(http);
    client.setBasePath("http://127.0.0.1:" + server.getLocalPort());
    return client;
  }

  @Test
  void clientJavaAloneTakesTheLostConnectionForAnUnparsablePayload() {
    Throwable thrown = catchThrowable(() -> new CoreV1Api(client(new OkHttpClient())).readNamespace("a").execute());

    assertThat(thrown).isInstanceOf(JsonSyntaxException.class).hasRootCauseInstanceOf(IOException.class);
  }

  @Test
  void aBodyReadWholeFirstMakesTheLostConnectionAFailedRequest() {
    OkHttpClient http = new OkHttpClient.Builder().addInterceptor(new WholeResponseBodies()).build();

    Throwable thrown = catchThrowable(() -> new CoreV1Api(client(http)).readNamespace("a").execute());

    assertThat(thrown).isInstanceOf(ApiException.class).hasCauseInstanceOf(IOException.class);
    assertThat(((ApiException) thrown).getCode()).isZero();
  }

  @Test
  void aWholeBodyIsDecodedAsBefore() throws Exception {
    server.close();
    serving.join();
    server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    String body = "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"}}";
    serving = new Thread(() -> {
      try (Socket socket = server.accept()) {
        socket.getInputStream().read(new byte[8192]);
        socket.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // closed
      }
    });
    serving.start();
    OkHttpClient http = new OkHttpClient.Builder().addInterceptor(new WholeResponseBodies()).build();

    assertThat(new CoreV1Api(client(http)).readNamespace("a").execute().getMetadata().getName()).isEqualTo("a");
  }
}
