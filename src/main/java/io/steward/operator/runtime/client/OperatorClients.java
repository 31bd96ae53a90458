package io.steward.operator.runtime.client;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.auth.ApiKeyAuth;
import io.kubernetes.client.openapi.auth.Authentication;
import java.time.Duration;
import okhttp3.EventListener;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;

/**
 * The two API clients Steward uses, made from the one {@link ApiClient} bean: {@code requests}
 * for reads and writes of single objects (bounded timeouts, so a hung connection cannot stall a
 * worker forever; each body read whole, see {@link WholeResponseBodies}) and {@code watches} for
 * informers (no read timeout: a watch is a long-lived stream). Both send the replica's User-Agent;
 * every request of both passes {@code writeGuard} (the leader fence) as the last step before the
 * socket, and is timed by {@code requestMetrics} ({@link ApiRequestMetrics}).
 */
public final class OperatorClients {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final ApiClient requests;
  private final ApiClient watches;

  public OperatorClients(ApiClient configured, OperatorIdentity identity, Interceptor writeGuard,
      EventListener requestMetrics) {
    this(configured, identity, writeGuard, requestMetrics, null);
  }

  /** @param observation an interceptor that observes requests for tracing; null for none */
  public OperatorClients(ApiClient configured, OperatorIdentity identity, Interceptor writeGuard,
      EventListener requestMetrics, Interceptor observation) {
    LenientJson.install(configured);
    this.requests = configured;
    OkHttpClient.Builder http = configured.getHttpClient().newBuilder().addNetworkInterceptor(writeGuard)
        .eventListener(requestMetrics);
    if (observation != null) {
      http.addInterceptor(observation);
    }
    OkHttpClient shared = http.connectTimeout(CONNECT_TIMEOUT).writeTimeout(REQUEST_TIMEOUT).build();
    requests.setHttpClient(shared.newBuilder().readTimeout(REQUEST_TIMEOUT)
        .addInterceptor(new WholeResponseBodies()).build());
    requests.setUserAgent(identity.userAgent());

    // Same server, TLS material, interceptors (token refresh) and metrics, but no read timeout, and
    // bodies decoded as they stream in (lists of every object of a kind).
    this.watches = new ApiClient(shared.newBuilder().readTimeout(Duration.ZERO).build());
    watches.setBasePath(configured.getBasePath());
    watches.setUserAgent(identity.userAgent());
    for (var entry : configured.getAuthentications().entrySet()) {
      Authentication auth = entry.getValue();
      if (auth instanceof ApiKeyAuth key && key.getApiKey() != null) {
        ApiKeyAuth copy = (ApiKeyAuth) watches.getAuthentication(entry.getKey());
        copy.setApiKey(key.getApiKey());
        copy.setApiKeyPrefix(key.getApiKeyPrefix());
      }
    }
  }

  public ApiClient requests() {
    return requests;
  }

  public ApiClient watches() {
    return watches;
  }
}
