package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.operator.runtime.election.Leases;
import io.steward.operator.runtime.election.RivalLeases;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One replica's bucket ownership against the API server: what it writes when the world changes
 * under it, judged from the bucket Lease the API server keeps.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class BucketOwnershipIT {
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Duration RETRY = Duration.ofSeconds(1);

  /**
   * The replica owned the bucket, then another took it (this one was partitioned or paused past its
   * lease) and a leader-mode replica appeared: yielding to the leader must not empty the Lease of the
   * replica that holds it now, which would free the bucket for a third while the second still works it.
   */
  @Test
  void yieldingToALeaderReleasesOnlyABucketStillItsOwn(LocalCluster cluster, TestNamespace namespace) throws Exception {
    String ns = namespace.name();
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    String bucket = BucketOwnership.bucketLease(0);
    AtomicInteger leaderReads = new AtomicInteger(-1); // counting once armed
    RivalLeases.Source leaderLease = () -> {
      int read = leaderReads.get() < 0 ? -1 : leaderReads.getAndIncrement();
      if (read < 0) {
        return List.of();
      }
      if (read == 0) { // after this round's list of the bucket Leases: another replica takes the bucket
        V1Lease taken = leases.readNamespacedLease(bucket, ns).execute();
        taken.getSpec().holderIdentity("b").leaseTransitions(taken.getSpec().getLeaseTransitions() + 1);
        leases.replaceNamespacedLease(bucket, ns, taken).execute();
        return List.of();
      }
      return List.of(new V1Lease().metadata(new V1ObjectMeta().name("steward-leader").resourceVersion("1"))
          .spec(new V1LeaseSpec().holderIdentity("leader-mode-pod")));
    };
    List<String> moves = new CopyOnWriteArrayList<>();
    BucketTerms terms = new BucketTerms(1, Duration.ofSeconds(4), RETRY);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BucketOwnership ownership = new BucketOwnership(leases, ns, "a", terms, new WriteFence(terms, true, registry),
        LEASE, RETRY, true, () -> true, new RivalLeases(leaderLease, LEASE), registry,
        (b, move, detail) -> moves.add(move + " " + detail));
    ownership.start();
    try {
      await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
          .until(() -> "a".equals(leases.readNamespacedLease(bucket, ns).execute().getSpec().getHolderIdentity()));
      leaderReads.set(0);

      await().atMost(Duration.ofSeconds(10)).until(() -> leaderReads.get() > 3);

      assertThat(leases.readNamespacedLease(bucket, ns).execute().getSpec().getHolderIdentity())
          .as("the bucket Lease, as the API server keeps it").isEqualTo("b");
      assertThat(moves).as("moves").anyMatch(m -> m.startsWith("LOST"))
          .noneMatch(m -> m.startsWith("RELEASED"));
      assertThat(ownership.owned()).isEmpty();
    } finally {
      ownership.stop(Duration.ofSeconds(5));
    }
  }

  /**
   * A replica that joins takes nothing free in its first periodic rounds (replicas starting together
   * see each other first), but what a live owner released for it, it takes at once: a scale-up then
   * waits for the owner's hand-over, not for the joiner's third round as well. Judged by the rounds the
   * joiner had run when it took its first bucket; the owner's Leases as the API server keeps them.
   */
  @Test
  void aJoinerTakesWhatWasReleasedForItBeforeItsThirdRound(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    Duration retry = Duration.ofSeconds(3);
    Duration lease = Duration.ofSeconds(9);
    int buckets = 4;
    String ns = namespace.sibling(cluster, "join");
    BucketOwnership owner = replica(cluster, ns, "a", buckets, lease, retry, new CopyOnWriteArrayList<>());
    owner.start();
    List<String> joinerMoves = new CopyOnWriteArrayList<>();
    BucketOwnership joiner = replica(cluster, ns, "b", buckets, lease, retry, joinerMoves);
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> owner.owned().size() == buckets);
      joiner.start();
      Set<Integer> joinersShare = BucketAssignment.assign(buckets, List.of("a", "b")).entrySet().stream()
          .filter(e -> e.getValue().equals("b")).map(Map.Entry::getKey).collect(Collectors.toSet());
      assertThat(joinersShare).as("the assignment gives the joiner some buckets").isNotEmpty();
      // A bucket counts as owned just before its move is reported: wait for both.
      await().atMost(Duration.ofSeconds(30))
          .until(() -> joiner.owned().containsAll(joinersShare) && joinerMoves.size() >= joinersShare.size());

      assertThat(joinerMoves).as("the joiner's takes, each with its periodic rounds then").isNotEmpty()
          .allSatisfy(move -> assertThat(move).startsWith("ACQUIRED released for this replica"));
      assertThat(joinerMoves.get(0)).as("the first take came before the joiner's third round")
          .matches("ACQUIRED released for this replica after round [12]");
      CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
      for (int bucket : joinersShare) {
        V1Lease taken = leases.readNamespacedLease(BucketOwnership.bucketLease(bucket), ns).execute();
        assertThat(taken.getSpec().getHolderIdentity()).isEqualTo("b");
        assertThat(taken.getMetadata().getAnnotations()).as("a taken Lease names no one it was released for")
            .doesNotContainKey(BucketOwnership.RELEASED_FOR);
      }
    } finally {
      joiner.stop(Duration.ofSeconds(5));
      owner.stop(Duration.ofSeconds(5));
    }
  }

  /**
   * Leases released for no one (a graceful stop) or for another replica are taken only from the third
   * periodic round on, as before: a replica starting beside others must not take everything first.
   */
  @Test
  void aLeaseReleasedForNoOneOrAnotherWaitsForTheThirdRound(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    String ns = namespace.sibling(cluster, "released");
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    for (int bucket = 0; bucket < 2; bucket++) {
      V1ObjectMeta metadata = new V1ObjectMeta().name(BucketOwnership.bucketLease(bucket))
          .putLabelsItem(Leases.SHARD_LEASE_LABEL, "bucket");
      if (bucket == 1) {
        metadata.putAnnotationsItem(BucketOwnership.RELEASED_FOR, "another-replica");
      }
      leases.createNamespacedLease(ns, new V1Lease().metadata(metadata)
          .spec(new V1LeaseSpec().holderIdentity("").leaseDurationSeconds(6))).execute();
    }
    List<String> moves = new CopyOnWriteArrayList<>();
    BucketOwnership alone = replica(cluster, ns, "c", 2, LEASE, RETRY, moves);
    alone.start();
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> alone.owned().size() == 2 && moves.size() >= 2);
      assertThat(moves).hasSize(2).allSatisfy(move -> assertThat(move).isEqualTo("ACQUIRED free after round "
          + (BucketOwnership.ROUNDS_BEFORE_TAKING + 1)));
    } finally {
      alone.stop(Duration.ofSeconds(5));
    }
  }

  /**
   * A replica holding its buckets writes each Lease (its member Lease too) once half its term has
   * passed, not every round, and keeps every bucket valid all the while: judged from the Lease writes
   * in the audit log. Rounds every second and a term of 7.5 s: a write every 4 s, where writing every
   * round would send 16 per Lease in the window; a renewal left too late would lapse a term.
   */
  @Test
  void eachLeaseIsWrittenAgainOnceHalfItsTermHasPassedAndNoTermLapses(LocalCluster cluster,
      TestNamespace namespace) throws Exception {
    int buckets = 4;
    Duration window = Duration.ofSeconds(16);
    String ns = namespace.sibling(cluster, "renewals");
    List<String> moves = new CopyOnWriteArrayList<>();
    BucketOwnership alone = replica(cluster, ns, "d", buckets, Duration.ofSeconds(9), RETRY, moves);
    alone.start();
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> alone.owned().size() == buckets);
      long mark = cluster.auditLog().size();
      Instant from = Instant.now();
      List<String> lapses = new CopyOnWriteArrayList<>();
      long end = System.nanoTime() + window.toNanos();
      while (System.nanoTime() - end < 0) {
        for (int bucket = 0; bucket < buckets; bucket++) {
          if (!alone.accepts(bucket)) {
            lapses.add("bucket " + bucket + " at " + Instant.now());
          }
        }
        Thread.sleep(100);
      }
      Instant to = Instant.now();

      assertThat(lapses).as("moments a bucket's work was refused").isEmpty();
      assertThat(moves).as("moves after the takes").hasSize(buckets).allMatch(m -> m.startsWith("ACQUIRED"));
      Map<String, Long> writes = cluster.auditLog().entriesAfter(mark, e -> ns.equals(e.namespace())
              && "leases".equals(e.resource()) && e.mutating() && !e.received().isBefore(from)
              && e.received().isBefore(to))
          .stream().collect(Collectors.groupingBy(AuditLog.Entry::name, Collectors.counting()));
      Set<String> expected = new TreeSet<>(Set.of("steward-member-d"));
      for (int bucket = 0; bucket < buckets; bucket++) {
        expected.add(BucketOwnership.bucketLease(bucket));
      }
      assertThat(writes.keySet()).as("Leases written in the window").isEqualTo(expected);
      assertThat(writes).as("writes per Lease in %s, rounds a second apart", window)
          .allSatisfy((name, count) -> assertThat(count).isBetween(3L, 5L));
    } finally {
      alone.stop(Duration.ofSeconds(5));
    }
  }

  /**
   * One replica's ownership of {@code buckets} in the namespace, watching the shard Leases as Steward
   * does; {@code moves} records each move of its buckets with the periodic rounds it had run then.
   */
  private static BucketOwnership replica(LocalCluster cluster, String namespace, String identity, int buckets,
      Duration lease, Duration retry, List<String> moves) {
    BucketTerms terms = new BucketTerms(buckets, lease.minus(retry), retry);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicReference<BucketOwnership> self = new AtomicReference<>();
    ApiClient watches = LocalCluster.clientFor(cluster.kubeconfigFor("bucket-ownership-" + identity),
        "bucket-ownership-it/" + identity).setReadTimeout(0);
    BucketOwnership ownership = new BucketOwnership(new CoordinationV1Api(cluster.adminClient()), namespace,
        identity, terms, new WriteFence(terms, true, registry), lease, retry, true, () -> true,
        new RivalLeases(List::of, lease), registry,
        (bucket, move, detail) -> moves.add(move + " " + detail + " after round " + self.get().periodicRounds()));
    self.set(ownership);
    return ownership.watchingLeases(watches);
  }
}
