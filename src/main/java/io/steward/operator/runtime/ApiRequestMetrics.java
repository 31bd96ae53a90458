package io.steward.operator.runtime;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.okhttp3.OkHttpMetricsEventListener;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.time.Duration;
import java.util.List;
import okhttp3.EventListener;
import okhttp3.HttpUrl;
import okhttp3.Request;

/**
 * Every request to the API server, timed by Micrometer's OkHttp instrumentation as
 * {@code steward_api_requests_seconds{verb,resource,method,status,uri}}: the Kubernetes verb (get,
 * list, watch, create, update, patch, delete), the resource (plural, group-qualified, with its
 * subresource: {@code webapps.steward.io/status}) and the path with namespace and name left out,
 * so the series stay as few as the kinds Steward touches. A watch is timed until it ends.
 */
public final class ApiRequestMetrics {
  public static final String NAME = "steward_api_requests";
  /** Namespace subresources, which the API server reads as such rather than as namespaced resources. */
  private static final List<String> NAMESPACE_SUBRESOURCES = List.of("status", "finalize");

  private ApiRequestMetrics() {}

  /** The listener to give the OkHttp client that every API client of Steward's shares. */
  public static EventListener listener(MeterRegistry registry) {
    return OkHttpMetricsEventListener.builder(registry, NAME)
        .includeHostTag(false)
        .uriMapper(request -> parse(request).uri())
        .tag((request, response) -> Tag.of("verb", parse(request).verb()))
        .tag((request, response) -> Tag.of("resource", parse(request).resource()))
        .build();
  }

  /** Latency buckets for the request timer (registered as a bean, so it applies before the timer exists). */
  public static MeterFilter histogram() {
    return new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        if (!id.getName().equals(NAME)) {
          return config;
        }
        return DistributionStatisticConfig.builder().percentilesHistogram(true)
            .minimumExpectedValue((double) Duration.ofMillis(1).toNanos())
            .maximumExpectedValue((double) OperatorClients.REQUEST_TIMEOUT.toNanos()).build().merge(config);
      }
    };
  }

  /** What a request asks for, as the API server's RequestInfo reads it. */
  record Parsed(String verb, String resource, String uri) {}

  static Parsed parse(Request request) {
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
      return new Parsed(request.method().toLowerCase(), "", "other");
    }
    List<String> rest = parts.subList(start, parts.size());
    if (rest.size() >= 3 && rest.get(0).equals("namespaces") && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
      uri.append("/namespaces/{namespace}");
      rest = rest.subList(2, rest.size());
    }
    if (rest.isEmpty()) {
      return new Parsed(request.method().toLowerCase(), "", uri.toString());
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
    return new Parsed(verb(request, named), resource, uri.toString());
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
