package io.steward.operator.runtime.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.lang.Nullable;
import org.springframework.util.MimeType;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Actuator's endpoints over the JDK's HTTP server, answered as Spring Boot's Spring MVC adapter
 * answers them: real endpoints discovered by Actuator's own discoverer, real HTTP on loopback.
 */
class ActuatorHttpServerTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private AnnotationConfigApplicationContext context;
  private ActuatorHttpServer server;
  private final AtomicInteger boundPort = new AtomicInteger(-1);

  @Endpoint(id = "things")
  static class ThingsEndpoint {
    final Map<String, String> things = new LinkedHashMap<>(Map.of("a", "apple"));

    @ReadOperation
    Map<String, Object> all(@Nullable Integer limit, @Nullable List<String> tag) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("things", things);
      result.put("limit", limit);
      result.put("tags", tag);
      return result;
    }

    @ReadOperation
    String one(@Selector String name) {
      return things.get(name); // null: 404
    }

    @WriteOperation
    void put(@Selector String name, String value) {
      things.put(name, value);
    }

    @DeleteOperation
    void remove(@Selector String name) {
      things.remove(name);
    }
  }

  @Endpoint(id = "paths")
  static class PathsEndpoint {
    @ReadOperation
    WebEndpointResponse<Map<String, Object>> under(@Selector(match = Match.ALL_REMAINING) String... path) {
      int status = path.length > 0 && path[0].equals("missing") ? 503 : 200;
      return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("path", Arrays.asList(path))), status);
    }
  }

  @Endpoint(id = "text")
  static class TextEndpoint {
    @ReadOperation(produces = "text/plain")
    WebEndpointResponse<byte[]> text() {
      return new WebEndpointResponse<>("plain words".getBytes(), MimeType.valueOf("text/plain;charset=utf-8"));
    }
  }

  @BeforeEach
  void start() {
    context = new AnnotationConfigApplicationContext();
    context.registerBean(ThingsEndpoint.class);
    context.registerBean(PathsEndpoint.class);
    context.registerBean(TextEndpoint.class);
    context.refresh();
    WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(context, new ConversionServiceParameterValueMapper(),
        EndpointMediaTypes.DEFAULT, List.of(), List.of(), List.of(), List.of(), List.of());
    JsonMapper endpointJson = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    server = new ActuatorHttpServer(new InetSocketAddress("127.0.0.1", 0), "/actuator", discoverer.getEndpoints(),
        endpointJson, JsonMapper.builder().build(), boundPort::set);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop();
    context.close();
  }

  private HttpResponse<String> send(String method, String path, String accept, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (accept != null) {
      request.header("Accept", accept);
    }
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send("GET", path, null, null);
  }

  @Test
  void publishesTheBoundPort() {
    assertThat(server.port()).isPositive();
    assertThat(boundPort).hasValue(server.port());
    assertThat(server.isRunning()).isTrue();
  }

  @Test
  void queryParametersBecomeArgumentsConvertedToTheirTypes() throws Exception {
    HttpResponse<String> response = get("/actuator/things?limit=5&tag=x&tag=y%20z");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/vnd.spring-boot.actuator.v3+json");
    assertThat(response.body()).isEqualTo("{\"things\":{\"a\":\"apple\"},\"limit\":5,\"tags\":[\"x\",\"y z\"]}");

    HttpResponse<String> bad = get("/actuator/things?limit=many");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("limit");
  }

  @Test
  void aSelectorIsAPathSegmentAndNullAnswersAReadWith404() throws Exception {
    assertThat(get("/actuator/things/a").body()).isEqualTo("apple");
    assertThat(get("/actuator/things/a").headers().firstValue("Content-Type")).hasValue(
        "application/vnd.spring-boot.actuator.v3+json;charset=UTF-8");
    assertThat(get("/actuator/things/b").statusCode()).isEqualTo(404);
    assertThat(get("/actuator/things/a/more").statusCode()).isEqualTo(404);
  }

  @Test
  void writesTakeAJsonBodyAndAnswerNullWith204() throws Exception {
    assertThat(send("POST", "/actuator/things/b", null, "{\"value\":\"banana\"}").statusCode()).isEqualTo(204);
    assertThat(get("/actuator/things/b").body()).isEqualTo("banana");
    assertThat(send("DELETE", "/actuator/things/b", null, null).statusCode()).isEqualTo(204);
    assertThat(get("/actuator/things/b").statusCode()).isEqualTo(404);

    HttpResponse<String> missing = send("POST", "/actuator/things/c", null, "{}");
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(missing.body()).contains("value");
    HttpResponse<String> notJson = send("POST", "/actuator/things/c", null, "[1,");
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(notJson.body()).contains("not a JSON object");
  }

  @Test
  void aMatchAllSelectorTakesTheRemainingSegmentsAndAResponseItsStatus() throws Exception {
    HttpResponse<String> nested = get("/actuator/paths/one/two%2Fthree");
    assertThat(nested.statusCode()).isEqualTo(200);
    assertThat(nested.body()).as("Actuator's own bodies go through its mapper (indented here)")
        .contains("\n").contains("\"one\"").contains("\"two/three\"");
    assertThat(get("/actuator/paths").statusCode()).isEqualTo(200);
    assertThat(get("/actuator/paths/missing").statusCode()).isEqualTo(503);
  }

  @Test
  void theAcceptHeaderChoosesAmongWhatAnOperationProduces() throws Exception {
    assertThat(send("GET", "/actuator/things", "application/json", null).headers().firstValue("Content-Type"))
        .hasValue("application/json");
    assertThat(send("GET", "/actuator/things", "text/html;q=0.9, application/vnd.spring-boot.actuator.v2+json", null)
        .headers().firstValue("Content-Type")).hasValue("application/vnd.spring-boot.actuator.v2+json");
    HttpResponse<String> refused = send("GET", "/actuator/things", "image/png", null);
    assertThat(refused.statusCode()).isEqualTo(406);
    assertThat(refused.body()).contains("application/json");
    HttpResponse<String> unreadable = send("GET", "/actuator/things", "no media type", null);
    assertThat(unreadable.statusCode()).isEqualTo(400);
    assertThat(unreadable.body()).contains("Accept header");

    HttpResponse<String> text = send("GET", "/actuator/text", "*/*", null);
    assertThat(text.body()).isEqualTo("plain words");
    assertThat(text.headers().firstValue("Content-Type")).hasValue("text/plain;charset=utf-8");
  }

  @Test
  void otherMethodsAreRefusedWithWhatIsAllowedAndHeadAnswersWithoutABody() throws Exception {
    HttpResponse<String> put = send("PUT", "/actuator/things", null, null);
    assertThat(put.statusCode()).isEqualTo(405);
    assertThat(put.headers().firstValue("Allow")).hasValue("GET, HEAD");
    HttpResponse<String> head = send("HEAD", "/actuator/things/a", null, null);
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
  }

  @Test
  void theBasePathLinksEveryEndpointAndNothingIsServedOutsideIt() throws Exception {
    HttpResponse<String> links = get("/actuator");
    assertThat(links.statusCode()).isEqualTo(200);
    assertThat(links.body()).contains("\"_links\"", "/actuator/things\"", "/actuator/things/{name}\"",
        "/actuator/paths/{*path}\"", "\"templated\" : true");
    assertThat(get("/").statusCode()).isEqualTo(404);
    assertThat(get("/elsewhere/things").statusCode()).isEqualTo(404);
    assertThat(get("/actuator/nothing").statusCode()).isEqualTo(404);
  }

  @Test
  void afterAStopNothingAnswers() {
    int port = server.port();
    server.stop();
    assertThat(server.isRunning()).isFalse();
    assertThat(server.port()).isEqualTo(-1);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator")).build(),
        HttpResponse.BodyHandlers.ofString())).isInstanceOf(java.io.IOException.class);
  }
}
