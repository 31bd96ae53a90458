package io.steward.operator.runtime.client;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.okhttp3.OkHttpMetricsEventListener;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.time.Duration;
import okhttp3.EventListener;

/**
 * Every request to the API server, timed by Micrometer's OkHttp instrumentation as
 * {@code steward_api_requests_seconds{verb,resource,method,status,uri}}: the Kubernetes verb (get,
 * list, watch, create, update, patch, delete), the resource (plural, group-qualified, with its
 * subresource: {@code webapps.steward.io/status}) and the path with namespace and name left out,
 * so the series stay as few as the kinds Steward touches. A watch is timed until it ends.
 */
public final class ApiRequestMetrics {
  public static final String NAME = "steward_api_requests";

  private ApiRequestMetrics() {}

  /** The listener to give the OkHttp client that every API client of Steward's shares. */
  public static EventListener listener(MeterRegistry registry) {
    return OkHttpMetricsEventListener.builder(registry, NAME)
        .includeHostTag(false)
        .uriMapper(request -> RequestInfo.of(request).uri())
        .tag((request, response) -> Tag.of("verb", RequestInfo.of(request).verb()))
        .tag((request, response) -> Tag.of("resource", RequestInfo.of(request).resource()))
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
}
