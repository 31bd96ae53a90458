package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ListWatchHealthTest {
  /** A clock the test moves by hand. */
  private static final class ManualClock extends Clock {
    private Instant now = Instant.parse("2026-12-03T10:00:00Z");

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final ManualClock clock = new ManualClock();
  private final ListWatchHealth health = new ListWatchHealth("deployments in namespace team", Duration.ofSeconds(15), clock);

  @Test
  void failuresWithinTheGracePeriodDoNotCount() {
    health.failed(new ApiException(403, "forbidden"));
    clock.advance(Duration.ofSeconds(10));
    health.failed(new ApiException(403, "forbidden"));

    assertThat(health.failing()).isNull();
    assertThat(health.failures()).isEqualTo(2);
  }

  @Test
  void failuresThatOutlastTheGracePeriodAreReportedWithTheFirstTimeAndTheLatestError() {
    Instant first = clock.instant();
    health.failed(new ApiException(403, "forbidden"));
    clock.advance(Duration.ofSeconds(16));
    health.failed(new IllegalArgumentException("wrapped", new IllegalStateException("The field `x` is not defined")));

    assertThat(health.failing()).isEqualTo(new ListWatchHealth.Failure(first, "The field `x` is not defined"));
  }

  @Test
  void aSuccessfulListEndsTheFailure() {
    health.failed(new ApiException(500, "boom"));
    clock.advance(Duration.ofSeconds(20));
    health.listed();

    assertThat(health.failing()).isNull();
    health.failed(new ApiException(500, "boom"));
    assertThat(health.failing()).as("a new failure starts a new grace period").isNull();
  }
}
