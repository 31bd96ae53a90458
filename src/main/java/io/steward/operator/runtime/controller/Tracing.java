package io.steward.operator.runtime.controller;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.binder.okhttp3.OkHttpObservationInterceptor;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import io.steward.operator.runtime.client.RequestInfo;
import okhttp3.Interceptor;

/**
 * Where the runtime's observations go: one per reconcile ({@link InstrumentedReconciler}) and one
 * per API request sent while a reconcile is under way, its child. With tracing off the registry is
 * {@link ObservationRegistry#NOOP}: a reconcile then creates no observation, and the API clients
 * carry no interceptor at all.
 */
public record Tracing(ObservationRegistry registry) {
  /** The observation of one reconcile, and so its span's name. */
  public static final String RECONCILE = "steward.reconcile";
  /** The observation of one request to the API server made by a reconcile. */
  public static final String API_REQUEST = "steward.api.request";

  public static Tracing off() {
    return new Tracing(ObservationRegistry.NOOP);
  }

  public boolean isOn() {
    return !registry.isNoop();
  }

  /**
   * An OkHttp interceptor that observes a request only inside a reconcile's observation: informers'
   * lists and watches and Lease renewals have none and would each be a trace of their own.
   * The verb, resource and path template are those of {@link RequestInfo}.
   */
  public Interceptor apiRequests() {
    Interceptor observed = OkHttpObservationInterceptor.builder(registry, API_REQUEST)
        .includeHostTag(false)
        .uriMapper(request -> RequestInfo.of(request).uri())
        .tag((request, response) -> KeyValue.of("verb", RequestInfo.of(request).verb()))
        .tag((request, response) -> KeyValue.of("resource", RequestInfo.of(request).resource()))
        .build();
    return chain -> registry.getCurrentObservation() == null ? chain.proceed(chain.request())
        : observed.intercept(chain);
  }

  /**
   * The observations are for spans; their timers would repeat controller-runtime's and
   * {@code steward_api_requests}, so they are kept out of the meter registry.
   */
  public static MeterFilter noTimers() {
    return MeterFilter.deny(id -> id.getName().startsWith(RECONCILE) || id.getName().startsWith(API_REQUEST));
  }
}
