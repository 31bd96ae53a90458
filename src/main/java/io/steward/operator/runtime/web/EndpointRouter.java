package io.steward.operator.runtime.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationArgumentResolver;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.ProducibleOperationArgumentResolver;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.EndpointLinksResolver;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.WebOperationRequestPredicate;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.core.io.Resource;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;
import org.springframework.util.StringUtils;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * What Actuator answers to one HTTP request, as Spring Boot's Spring MVC adapter answers it: path
 * variables, the remaining segments of a match-all variable, query parameters and a JSON body become
 * the operation's arguments; the {@code Accept} header chooses among what the operation produces;
 * null answers a read with 404 and a write with 204; a {@link WebEndpointResponse} gives the status
 * and content type; an invalid request is a 400 naming what is wrong, a wrong method a 405 with
 * {@code Allow}, an unacceptable {@code Accept} a 406. The links to every endpoint are at the base
 * path. Knows nothing of what the endpoints are, nor of the server that reads the request.
 */
final class EndpointRouter {
  private static final Logger log = LoggerFactory.getLogger(EndpointRouter.class);
  private static final String JSON = "application/json";
  private static final Map<Integer, String> REASONS = Map.of(400, "Bad Request", 404, "Not Found",
      405, "Method Not Allowed", 406, "Not Acceptable", 500, "Internal Server Error");

  /**
   * One request as the server read it.
   *
   * @param accept the {@code Accept} header's values, null when it had none
   * @param host the host and port the links name (the {@code Host} header, else the server's address)
   */
  record Request(String method, String rawPath, String rawQuery, List<String> accept, String host, InputStream body) {}

  private final String basePath;
  private final List<String> base;
  private final List<Route> routes;
  private final EndpointLinksResolver links;
  private final JsonMapper endpointJson;
  private final JsonMapper otherJson;

  /**
   * {@code endpointJson} writes Actuator's own response bodies ({@link OperationResponseBody}), as
   * Spring Boot keeps them apart from the application's JSON settings; {@code otherJson} the rest.
   */
  EndpointRouter(String basePath, Collection<ExposableWebEndpoint> endpoints, JsonMapper endpointJson,
      JsonMapper otherJson) {
    this.basePath = basePath == null ? ""
        : StringUtils.trimTrailingCharacter(StringUtils.trimLeadingCharacter(basePath, '/'), '/');
    this.base = segments(this.basePath);
    this.routes = new ArrayList<>();
    for (ExposableWebEndpoint endpoint : endpoints) {
      for (WebOperation operation : endpoint.getOperations()) {
        routes.add(new Route(operation));
      }
    }
    this.links = new EndpointLinksResolver(endpoints, "/" + this.basePath);
    this.endpointJson = endpointJson;
    this.otherJson = otherJson;
  }

  /** The base path, without slashes at either end. */
  String basePath() {
    return basePath;
  }

  /** How many endpoint operations are served. */
  int operations() {
    return routes.size();
  }

  /** What to answer: found by the request's path, method and Accept header, then invoked. */
  Reply answer(Request request) {
    String rawPath = request.rawPath();
    try {
      return find(request, rawPath);
    } catch (InvalidEndpointRequestException e) {
      return error(400, e.getMessage(), rawPath);
    } catch (RuntimeException e) {
      log.warn("Actuator request {} {} failed", request.method(), rawPath, e);
      return error(500, e.toString(), rawPath);
    }
  }

  private Reply find(Request request, String rawPath) {
    String method = request.method();
    List<String> segments = segments(rawPath);
    if (!startsWith(segments, base)) {
      return error(404, "nothing is served at " + rawPath, rawPath);
    }
    List<String> path = segments.subList(base.size(), segments.size());
    boolean read = method.equals("GET") || method.equals("HEAD");
    if (path.isEmpty()) {
      return read ? new Reply(200, linksBody(request), JSON) : methodNotAllowed(Set.of("GET", "HEAD"), rawPath);
    }
    Set<String> allowed = new LinkedHashSet<>();
    for (Route route : routes) {
      Map<String, Object> variables = route.match(path);
      if (variables == null) {
        continue;
      }
      String routeMethod = route.predicate.getHttpMethod().name();
      allowed.add(routeMethod);
      if (!routeMethod.equals(read ? "GET" : method)) {
        continue;
      }
      List<MimeType> accepted = accepted(request.accept());
      String produced = route.produce(accepted);
      if (produced == null) {
        return error(406, "this endpoint produces " + route.predicate.getProduces(), rawPath);
      }
      return invoke(route, variables, request, produced);
    }
    if (allowed.contains("GET")) {
      allowed.add("HEAD");
    }
    return allowed.isEmpty() ? error(404, "no endpoint at " + rawPath, rawPath) : methodNotAllowed(allowed, rawPath);
  }

  private Reply invoke(Route route, Map<String, Object> variables, Request request, String produced) {
    Map<String, Object> arguments = new LinkedHashMap<>(variables);
    String method = request.method();
    if (method.equals("POST")) {
      arguments.putAll(body(request.body()));
    }
    arguments.putAll(queryParameters(request.rawQuery()));
    List<String> accept = request.accept();
    InvocationContext context = new InvocationContext(SecurityContext.NONE, arguments,
        OperationArgumentResolver.of(WebServerNamespace.class, () -> WebServerNamespace.SERVER),
        new ProducibleOperationArgumentResolver(() -> accept));
    Object result = route.operation.invoke(context);
    if (result == null) {
      return new Reply(method.equals("GET") || method.equals("HEAD") ? 404 : 204, null, null);
    }
    if (result instanceof WebEndpointResponse<?> response) {
      String type = response.getContentType() == null ? produced : response.getContentType().toString();
      return body(response.getStatus(), response.getBody(), type);
    }
    return body(200, result, produced);
  }

  private Reply body(int status, Object body, String type) {
    if (body == null) {
      return new Reply(status, null, null);
    }
    if (body instanceof byte[] bytes) {
      return new Reply(status, bytes, type);
    }
    if (body instanceof CharSequence text) {
      return new Reply(status, text.toString().getBytes(StandardCharsets.UTF_8), withCharset(type));
    }
    if (body instanceof Resource resource) {
      try (InputStream in = resource.getInputStream()) {
        return new Reply(status, in.readAllBytes(), type);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    JsonMapper mapper = body instanceof OperationResponseBody ? endpointJson : otherJson;
    return new Reply(status, mapper.writeValueAsBytes(body), type);
  }

  private Reply error(int status, String message, String path) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", status);
    body.put("error", REASONS.get(status));
    body.put("message", message);
    body.put("path", path);
    return new Reply(status, otherJson.writeValueAsBytes(body), JSON);
  }

  private Reply methodNotAllowed(Set<String> allowed, String path) {
    Reply error = error(405, "allowed: " + String.join(", ", allowed), path);
    return new Reply(405, error.body(), JSON, String.join(", ", allowed));
  }

  private byte[] linksBody(Request request) {
    String url = "http://" + request.host() + "/" + basePath;
    return endpointJson.writeValueAsBytes(OperationResponseBody.of(Map.of("_links", links.resolveLinks(url))));
  }

  private Map<String, Object> body(InputStream in) {
    try {
      byte[] bytes = in.readAllBytes();
      if (bytes.length == 0) {
        return Map.of();
      }
      Map<String, Object> body = otherJson.readValue(bytes, Map.class);
      return body == null ? Map.of() : body;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (JacksonException e) {
      throw new InvalidEndpointRequestException("the request body is not a JSON object: " + e.getOriginalMessage(),
          "the request body is not a JSON object");
    }
  }

  /** A query's parameters as a servlet container gives them: one value, or a list of several. */
  static Map<String, Object> queryParameters(String rawQuery) {
    Map<String, List<String>> values = new LinkedHashMap<>();
    if (rawQuery != null) {
      for (String pair : rawQuery.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        values.computeIfAbsent(name, key -> new ArrayList<>()).add(value);
      }
    }
    Map<String, Object> parameters = new LinkedHashMap<>();
    values.forEach((name, list) -> parameters.put(name, list.size() == 1 ? list.get(0) : list));
    return parameters;
  }

  /** The path's decoded segments, empty ones (a doubled or trailing slash) left out. */
  static List<String> segments(String rawPath) {
    return Arrays.stream(rawPath.split("/")).filter(s -> !s.isEmpty())
        .map(s -> StringUtils.uriDecode(s, StandardCharsets.UTF_8)).toList();
  }

  /** The Accept header's media ranges, the most preferred first (quality, then the header's order). */
  static List<MimeType> accepted(List<String> headers) {
    if (headers == null || headers.isEmpty()) {
      return List.of(MimeTypeUtils.ALL);
    }
    List<MimeType> types = new ArrayList<>();
    for (String header : headers) {
      try {
        types.addAll(MimeTypeUtils.parseMimeTypes(header));
      } catch (IllegalArgumentException e) {
        throw new InvalidEndpointRequestException("unreadable Accept header: " + header, "unreadable Accept header");
      }
    }
    types.sort(Comparator.comparingDouble(EndpointRouter::quality).reversed());
    return types.stream().filter(type -> quality(type) > 0).toList();
  }

  private static double quality(MimeType type) {
    String q = type.getParameter("q");
    try {
      return q == null ? 1.0 : Double.parseDouble(q);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static boolean startsWith(List<String> segments, List<String> prefix) {
    return segments.size() >= prefix.size() && segments.subList(0, prefix.size()).equals(prefix);
  }

  private static String withCharset(String type) {
    return type.contains("charset") ? type : type + ";charset=UTF-8";
  }

  /** One operation and the path it answers, as segments: literals, {@code {name}} and a last {@code {*name}}. */
  private static final class Route {
    final WebOperation operation;
    final WebOperationRequestPredicate predicate;
    final List<String> pattern;
    final List<MimeType> produces;

    Route(WebOperation operation) {
      this.operation = operation;
      this.predicate = operation.getRequestPredicate();
      this.pattern = segments(predicate.getPath());
      this.produces = predicate.getProduces().stream().map(MimeTypeUtils::parseMimeType).toList();
    }

    /** The path variables if {@code path} is this route's, else null. */
    Map<String, Object> match(List<String> path) {
      Map<String, Object> variables = new LinkedHashMap<>();
      for (int i = 0; i < pattern.size(); i++) {
        String part = pattern.get(i);
        if (part.startsWith("{*") && part.endsWith("}")) {
          variables.put(part.substring(2, part.length() - 1), path.subList(i, path.size()).toArray(String[]::new));
          return variables;
        }
        if (i >= path.size()) {
          return null;
        }
        if (part.startsWith("{") && part.endsWith("}")) {
          variables.put(part.substring(1, part.length() - 1), path.get(i));
        } else if (!part.equals(path.get(i))) {
          return null;
        }
      }
      return pattern.size() == path.size() ? variables : null;
    }

    /** The first of what it produces that the most preferred acceptable range admits; null if none does. */
    String produce(List<MimeType> accepted) {
      if (produces.isEmpty()) {
        return JSON;
      }
      for (MimeType range : accepted) {
        for (MimeType type : produces) {
          if (range.isCompatibleWith(type)) {
            return type.toString();
          }
        }
      }
      return null;
    }
  }

  /** A status, a body (null for none), its content type, and for a 405 the methods allowed. */
  record Reply(int status, byte[] body, String contentType, String allow) {
    Reply(int status, byte[] body, String contentType) {
      this(status, body, contentType, null);
    }
  }
}
