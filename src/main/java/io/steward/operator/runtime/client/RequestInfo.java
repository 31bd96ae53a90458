package io.steward.operator.runtime.client;

import java.util.List;
import okhttp3.HttpUrl;
import okhttp3.Request;

/**
 * What a request to the API server asks for, as the API server's own RequestInfo reads its path: the
 * Kubernetes verb (get, list, watch, create, update, patch, delete), the resource (plural,
 * group-qualified, with its subresource: {@code webapps.steward.io/status}) and the path with
 * namespace and name left out ({@code uri}), so that metrics keyed by it stay as few as the kinds.
 */
public record RequestInfo(String verb, String resource, String uri) {
  /** Namespace subresources, which the API server reads as such rather than as namespaced resources. */
  private static final List<String> NAMESPACE_SUBRESOURCES = List.of("status", "finalize");

  public static RequestInfo of(Request request) {
    HttpUrl url = request.url();
    List<String> parts = url.pathSegments().stream().filter(s -> !s.isEmpty()).toList();
    int start;
    StringBuilder uri = new StringBuilder();
    String group;
    if (parts.size() >= 2 && parts.get(0).equals("api")) {
      group = "";
      start = 2;
      uri.append("/api/").append(parts.get(1));
    } else if (parts.size() >= 3 && parts.get(0).equals("apis")) {
      group = parts.get(1);
      start = 3;
      uri.append("/apis/").append(parts.get(1)).append('/').append(parts.get(2));
    } else {
      return new RequestInfo(request.method().toLowerCase(), "", "other");
    }
    List<String> rest = parts.subList(start, parts.size());
    if (rest.size() >= 3 && rest.get(0).equals("namespaces") && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
      uri.append("/namespaces/{namespace}");
      rest = rest.subList(2, rest.size());
    }
    if (rest.isEmpty()) {
      return new RequestInfo(request.method().toLowerCase(), "", uri.toString());
    }
    String resource = rest.get(0) + (group.isEmpty() ? "" : "." + group);
    uri.append('/').append(rest.get(0));
    boolean named = rest.size() >= 2;
    if (named) {
      uri.append("/{name}");
    }
    if (rest.size() >= 3) {
      resource += "/" + rest.get(2);
      uri.append('/').append(rest.get(2));
    }
    return new RequestInfo(verb(request, named), resource, uri.toString());
  }

  private static String verb(Request request, boolean named) {
    String watch = request.url().queryParameter("watch");
    return switch (request.method()) {
      case "GET" -> "true".equals(watch) || "1".equals(watch) ? "watch" : named ? "get" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> named ? "delete" : "deletecollection";
      default -> request.method().toLowerCase();
    };
  }
}
