package io.steward.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
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
}
