package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BucketOwnershipTest {
  private static final Duration RETRY = Duration.ofSeconds(2);

  @Test
  void withNoOtherReplicasLeaseAboutToExpireTheNextRoundIsARetryPeriodAway() {
    assertThat(BucketOwnership.nextRoundIn(RETRY, 0, OptionalLong.empty())).isEqualTo(RETRY.toNanos());
  }

  @Test
  void aLeaseExpiringBeforeThenBringsTheRoundForwardToJustPastItsExpiry() {
    long untilExpiry = Duration.ofMillis(700).toNanos();
    assertThat(BucketOwnership.nextRoundIn(RETRY, 0, OptionalLong.of(untilExpiry)))
        .isGreaterThan(untilExpiry).isLessThan(untilExpiry + Duration.ofMillis(50).toNanos());
  }

  /** Rounds a retry period apart from start to start: a slow round does not delay the next. */
  @Test
  void theRetryPeriodCountsFromTheRoundsStart() {
    long took = Duration.ofMillis(700).toNanos();
    assertThat(BucketOwnership.nextRoundIn(RETRY, took, OptionalLong.empty())).isEqualTo(RETRY.toNanos() - took);
    assertThat(BucketOwnership.nextRoundIn(RETRY, took, OptionalLong.of(Duration.ofMillis(300).toNanos())))
        .isLessThan(Duration.ofMillis(350).toNanos());
  }

  /** A round longer than the period: the next comes a quarter period later, never at once. */
  @Test
  void aRoundLongerThanThePeriodIsFollowedByAQuarterOfOne() {
    assertThat(BucketOwnership.nextRoundIn(RETRY, Duration.ofSeconds(3).toNanos(), OptionalLong.empty()))
        .isEqualTo(RETRY.toNanos() / 4);
  }

  @Test
  void aLeaseExpiringLaterLeavesTheRetryPeriod() {
    assertThat(BucketOwnership.nextRoundIn(RETRY, 0, OptionalLong.of(Duration.ofSeconds(9).toNanos())))
        .isEqualTo(RETRY.toNanos());
  }

  /** A Lease is written again once half the term its last write granted has passed, not before. */
  @Test
  void aLeaseIsDueOnceHalfItsTermHasPassed() {
    Duration term = Duration.ofMillis(9_500);
    assertThat(BucketOwnership.renewalDue(term, term)).as("just written").isFalse();
    assertThat(BucketOwnership.renewalDue(Duration.ofMillis(4_800), term)).isFalse();
    assertThat(BucketOwnership.renewalDue(Duration.ofMillis(4_750), term)).isTrue();
    assertThat(BucketOwnership.renewalDue(Duration.ZERO, term)).as("lapsed").isTrue();
  }

  private static final int BUCKETS = 32;
  private static final List<String> LIVE = List.of("a", "b", "c");
  private static final Map<Integer, String> DESIRED = BucketAssignment.assign(BUCKETS, LIVE);

  /** Every bucket held as assigned: nothing to expect while every holder renews. */
  @Test
  void whileEveryHolderRenewsNothingIsExpected() {
    assertThat(BucketOwnership.nextToTake("a", BUCKETS, DESIRED, this::ownedByA, DESIRED, LIVE, bucket -> false))
        .isEmpty();
  }

  /**
   * A holder silent for two renewals (killed, say): its buckets are expected by the replicas that
   * will take them once its Leases expire, each by exactly one, and by the same ones the
   * assignment without it gives them to.
   */
  @Test
  void theBucketsOfASilentHolderAreExpectedByTheirHeirsOnly() {
    Map<Integer, String> withoutC = BucketAssignment.assign(BUCKETS, List.of("a", "b"));
    Set<Integer> ofC = DESIRED.entrySet().stream().filter(e -> e.getValue().equals("c")).map(Map.Entry::getKey)
        .collect(Collectors.toSet());
    Set<Integer> byA = BucketOwnership.nextToTake("a", BUCKETS, DESIRED, this::ownedByA, DESIRED, LIVE,
        bucket -> ofC.contains(bucket));
    Set<Integer> byB = BucketOwnership.nextToTake("b", BUCKETS, DESIRED, bucket -> "b".equals(DESIRED.get(bucket)),
        DESIRED, LIVE, bucket -> ofC.contains(bucket));

    assertThat(byA).isNotEmpty().allSatisfy(bucket -> assertThat(withoutC.get(bucket)).isEqualTo("a"));
    assertThat(byB).isNotEmpty().allSatisfy(bucket -> assertThat(withoutC.get(bucket)).isEqualTo("b"));
    assertThat(byA).doesNotContainAnyElementsOf(byB);
    assertThat(Set.copyOf(concat(byA, byB))).isEqualTo(ofC);
  }

  /** A bucket assigned here but still held by its former owner, which hands it over at its next round. */
  @Test
  void aBucketAssignedHereButHeldElsewhereIsExpected() {
    Map<Integer, String> holders = new HashMap<>(DESIRED);
    int handedOver = DESIRED.entrySet().stream().filter(e -> e.getValue().equals("a")).findFirst().orElseThrow()
        .getKey();
    holders.put(handedOver, "b");
    assertThat(BucketOwnership.nextToTake("a", BUCKETS, holders, bucket -> bucket != handedOver && ownedByA(bucket),
        DESIRED, LIVE, bucket -> false)).containsExactly(handedOver);
  }

  /** Free buckets are taken at once, and owned ones need nothing: neither is expected, silent or not. */
  @Test
  void freeAndOwnedBucketsAreNotExpected() {
    Map<Integer, String> holders = new HashMap<>(DESIRED);
    holders.replaceAll((bucket, holder) -> holder.equals("c") ? "" : holder);
    assertThat(BucketOwnership.nextToTake("a", BUCKETS, holders, this::ownedByA, DESIRED, LIVE,
        bucket -> !"b".equals(DESIRED.get(bucket)))).isEmpty();
  }

  private boolean ownedByA(int bucket) {
    return "a".equals(DESIRED.get(bucket));
  }

  private static List<Integer> concat(Set<Integer> a, Set<Integer> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }
}
