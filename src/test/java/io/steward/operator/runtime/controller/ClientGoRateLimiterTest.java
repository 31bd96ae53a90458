package io.steward.operator.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClientGoRateLimiterTest {

  @Test
  void perItemBackOffDoublesFromFiveMilliseconds() {
    RateLimiter<String> limiter = ClientGoRateLimiter.create();
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(20));
    assertThat(limiter.numRequeues("a")).isEqualTo(3);
    limiter.forget("a");
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void perItemBackOffStopsGrowingAtAMinute() {
    RateLimiter<String> limiter = ClientGoRateLimiter.create();
    Duration last = Duration.ZERO;
    for (int failure = 0; failure < 40; failure++) {
      last = limiter.when("failing");
    }
    assertThat(last).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void theOverallBucketAllowsABurstOfAHundredThenTenPerSecond() {
    RateLimiter<String> limiter = ClientGoRateLimiter.create();
    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("item-" + i)).as("burst item %d", i).isLessThanOrEqualTo(Duration.ofMillis(5));
    }
    Duration tenthAfterBurst = Duration.ZERO;
    for (int i = 0; i < 10; i++) {
      tenthAfterBurst = limiter.when("more-" + i);
    }
    // client-go refills 10 tokens per second: ten more items wait up to about 1 s (less the time this
    // loop took), where client-java's default bucket (10 per minute) would make them wait a minute.
    assertThat(tenthAfterBurst).isBetween(Duration.ofMillis(300), Duration.ofMillis(1000));
  }
}
