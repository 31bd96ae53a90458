package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaseExpiryTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final LeaseExpiry expiry = new LeaseExpiry(Duration.ofSeconds(5), nanos::get);

  @Test
  void aLeaseNeverSeenHasNotExpired() {
    assertThat(expiry.expired("a")).isFalse();
    assertThat(expiry.nanosUntilFirstExpiry(List.of("a"))).isEmpty();
  }

  @Test
  void aStateExpiresOnlyIfItIsTheOneThatStoodStill() {
    expiry.saw("a", "rv1", expiry.now());
    advance(Duration.ofSeconds(5));
    assertThat(expiry.expired("a", "rv1")).isTrue();
    assertThat(expiry.expired("a", "rv0")).as("an older read's state").isFalse();
  }

  @Test
  void seeingTheSameStateAgainDoesNotRestartTheCount() {
    expiry.saw("a", "rv1", expiry.now());
    advance(Duration.ofSeconds(4));
    expiry.saw("a", "rv1", expiry.now());
    advance(Duration.ofSeconds(1));
    assertThat(expiry.expired("a")).isTrue();
  }

  @Test
  void aChangedStateRestartsTheCount() {
    expiry.saw("a", "rv1", expiry.now());
    advance(Duration.ofSeconds(4));
    expiry.saw("a", "rv2", expiry.now());
    advance(Duration.ofSeconds(4));
    assertThat(expiry.expired("a")).isFalse();
    advance(Duration.ofSeconds(1));
    assertThat(expiry.expired("a")).isTrue();
  }

  @Test
  void aLeaseNoLongerFoundIsForgottenAndCountsAnewWhenItComesBack() {
    expiry.saw("a", "rv1", expiry.now());
    expiry.saw("b", "rv1", expiry.now());
    advance(Duration.ofSeconds(5));
    expiry.keepOnly(List.of("b"));
    assertThat(expiry.expired("a")).isFalse();
    assertThat(expiry.expired("b")).isTrue();
    expiry.saw("a", "rv1", expiry.now());
    assertThat(expiry.expired("a")).isFalse();
  }

  @Test
  void theFirstExpiryToComeIsTheEarliestOfThoseNotYetExpired() {
    expiry.saw("old", "rv1", expiry.now());
    advance(Duration.ofSeconds(2));
    expiry.saw("a", "rv1", expiry.now());
    advance(Duration.ofSeconds(1));
    expiry.saw("b", "rv1", expiry.now());
    advance(Duration.ofSeconds(3)); // "old" expired a second ago
    assertThat(expiry.expired("old")).isTrue();
    assertThat(expiry.nanosUntilFirstExpiry(List.of("old", "a", "b", "never-seen")))
        .isEqualTo(OptionalLong.of(Duration.ofSeconds(1).toNanos()));
    assertThat(expiry.nanosUntilFirstExpiry(List.of("old"))).isEmpty();
  }

  private void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }
}
