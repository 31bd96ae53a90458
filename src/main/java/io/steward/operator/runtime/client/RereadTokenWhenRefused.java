package io.steward.operator.runtime.client;

import io.kubernetes.client.util.credentials.RefreshAuthentication;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * When the API server refuses the token (401), the next request reads the credentials again instead
 * of waiting for the refresh period: a token rotated at once (its pod re-created, an exec plugin's
 * token revoked) then costs a few refused requests, not a lost Lease. client-go's exec authenticator
 * does the same. At most once per {@code atMostEvery}, so that a token nobody has replaced yet does
 * not run an exec plugin for every request.
 */
public final class RereadTokenWhenRefused implements Interceptor {
  private final RefreshAuthentication token;
  private final long atMostEveryNanos;
  private final LongSupplier nanoClock;
  private final AtomicLong lastReRead;

  public RereadTokenWhenRefused(RefreshAuthentication token, Duration atMostEvery) {
    this(token, atMostEvery, System::nanoTime);
  }

  RereadTokenWhenRefused(RefreshAuthentication token, Duration atMostEvery, LongSupplier nanoClock) {
    this.token = token;
    this.atMostEveryNanos = atMostEvery.toNanos();
    this.nanoClock = nanoClock;
    this.lastReRead = new AtomicLong(nanoClock.getAsLong() - atMostEveryNanos);
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Response response = chain.proceed(chain.request());
    if (response.code() == 401) {
      long now = nanoClock.getAsLong();
      long last = lastReRead.get();
      if (now - last >= atMostEveryNanos && lastReRead.compareAndSet(last, now)) {
        token.setExpiry(Instant.EPOCH);
      }
    }
    return response;
  }
}
