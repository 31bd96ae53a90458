package io.steward.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class BucketOwnershipTest {
  private static final Duration RETRY = Duration.ofSeconds(2);

  @Test
  void withNoOtherReplicasLeaseAboutToExpireTheNextRoundIsARetryPeriodAway() {
    assertThat(BucketOwnership.nextRoundIn(RETRY, OptionalLong.empty())).isEqualTo(RETRY.toNanos());
  }

  @Test
  void aLeaseExpiringBeforeThenBringsTheRoundForwardToJustPastItsExpiry() {
    long untilExpiry = Duration.ofMillis(700).toNanos();
    assertThat(BucketOwnership.nextRoundIn(RETRY, OptionalLong.of(untilExpiry)))
        .isGreaterThan(untilExpiry).isLessThan(untilExpiry + Duration.ofMillis(50).toNanos());
  }

  @Test
  void aLeaseExpiringLaterLeavesTheRetryPeriod() {
    assertThat(BucketOwnership.nextRoundIn(RETRY, OptionalLong.of(Duration.ofSeconds(9).toNanos())))
        .isEqualTo(RETRY.toNanos());
  }
}
