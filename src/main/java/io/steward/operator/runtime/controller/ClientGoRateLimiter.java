package io.steward.operator.runtime.controller;

import io.kubernetes.client.extended.workqueue.ratelimiter.BucketRateLimiter;
import io.kubernetes.client.extended.workqueue.ratelimiter.ItemExponentialFailureRateLimiter;
import io.kubernetes.client.extended.workqueue.ratelimiter.MaxOfRateLimiter;
import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import java.time.Duration;

/**
 * client-go's DefaultControllerRateLimiter, with a shorter cap: the larger of a per-item exponential
 * back-off (5 ms doubling, capped at one minute rather than client-go's 1000 s) and an overall token
 * bucket of 10 retries per second with a burst of 100. client-java's own default refills its bucket
 * 10 tokens per <em>minute</em>, which throttles a busy controller's retries to a crawl.
 *
 * <p>The cap keeps a promise: once a cause outside Steward is gone (permissions restored, an
 * outage over), every WebApp converges within two minutes. Under client-go's cap one that had failed
 * for ten minutes would wait up to sixteen more. What only a new spec can cure is not retried at all
 * (a terminal error), so the shorter cap costs one attempt a minute per WebApp still failing.
 */
public final class ClientGoRateLimiter {
  public static final Duration BASE_DELAY = Duration.ofMillis(5);
  public static final Duration MAX_DELAY = Duration.ofMinutes(1);
  public static final int BUCKET_QPS = 10;
  public static final int BUCKET_BURST = 100;

  private ClientGoRateLimiter() {}

  public static <T> RateLimiter<T> create() {
    return new MaxOfRateLimiter<>(
        new ItemExponentialFailureRateLimiter<>(BASE_DELAY, MAX_DELAY),
        new BucketRateLimiter<>(BUCKET_BURST, BUCKET_QPS, Duration.ofSeconds(1)));
  }
}
