package io.steward.operator.runtime;

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
  void theOverallBucketAllowsABurstOfAHundredThenTenPerSecond() {
    RateLimiter<String> limiter = ClientGoRateLimiter.create();
    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("item-" + i)).as("burst item %d", i).isLessThanOrEqualTo(Duration.ofMillis(5));
    }
    Duration afterBurst = limiter.when("one-more");
    // client-go: 10 tokens per second, so the 101st waits about 100 ms, not client-java's 6 s.
    assertThat(afterBurst).isBetween(Duration.ofMillis(50), Duration.ofMillis(150));
  }
}
