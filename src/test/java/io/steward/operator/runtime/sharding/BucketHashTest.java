package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BucketHashTest {
  @Test
  void fnv1a64MatchesThePublishedVectors() {
    // From the FNV reference test suite (Fowler/Noll/Vo): the same function the API server's
    // shardSelector uses, so buckets could one day be ranges of it.
    assertThat(BucketHash.fnv1a64("")).isEqualTo(0xcbf29ce484222325L);
    assertThat(BucketHash.fnv1a64("a")).isEqualTo(0xaf63dc4c8601ec8cL);
    assertThat(BucketHash.fnv1a64("foobar")).isEqualTo(0x85944171f73967e8L);
  }

  @Test
  void theBucketOfAnObjectIsFixed() {
    // Pinned: a change would relabel every object of a running deployment.
    assertThat(BucketHash.bucketOf("team-a", "shop", 32)).isEqualTo(
        (int) Long.remainderUnsigned(BucketHash.fnv1a64("team-a/shop"), 32));
    assertThat(BucketHash.bucketOf("team-a", "shop", 32)).isEqualTo(BucketHash.bucketOf("team-a", "shop", 32));
    assertThat(BucketHash.bucketOf("team-a", "shop", 32)).isBetween(0, 31);
  }

  @Test
  void namespaceAndNameAreNotConfused() {
    assertThat(BucketHash.fnv1a64("a/bc")).isNotEqualTo(BucketHash.fnv1a64("ab/c"));
  }

  @Test
  void objectsSpreadEvenlyOverBuckets() {
    Map<Integer, Integer> counts = new HashMap<>();
    int objects = 32_000;
    for (int i = 0; i < objects; i++) {
      counts.merge(BucketHash.bucketOf("ns-" + (i % 17), "app-" + i, 32), 1, Integer::sum);
    }
    assertThat(counts).hasSize(32);
    counts.values().forEach(count -> assertThat(count).isBetween(850, 1150));
  }
}
