package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.extended.leaderelection.LeaderElectionRecord;
import io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The lock's writes as the API server judges them. The elector and the campaign call one lock from
 * two threads; each take must carry the resourceVersion its own thread read, so that the API server
 * refuses it (409) when the Lease changed since, whatever the other thread read meanwhile.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class FencedLeaseLockIT {
  private static final Duration LEASE = Duration.ofSeconds(6);

  @Test
  void aTakeIsRefusedWhenTheLeaseWasTakenAfterThisThreadReadItFree(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    String ns = namespace.name();
    String name = "interleaved-take";
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    FencedLeaseLock[] lock = new FencedLeaseLock[1];
    AtomicBoolean interleaved = new AtomicBoolean();
    // The take's read of the bucket Leases is where the other thread's read slips in: by then the
    // free Lease has been taken by a replica that read it free too.
    RivalLeases.Source noBuckets = () -> {
      if (interleaved.compareAndSet(false, true)) {
        V1Lease free = leases.readNamespacedLease(name, ns).execute();
        free.getSpec().holderIdentity("rival").renewTime(OffsetDateTime.now()).acquireTime(OffsetDateTime.now());
        leases.replaceNamespacedLease(name, ns, free).execute();
        CompletableFuture.runAsync(() -> {
          try {
            assertThat(lock[0].get().getHolderIdentity()).isEqualTo("rival");
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        }).join();
      }
      return List.of();
    };
    lock[0] = freeLeaseAndLock(cluster, ns, name, noBuckets);

    assertThat(lock[0].get().getHolderIdentity()).isEmpty();
    Date now = new Date();
    boolean took = lock[0].update(new LeaderElectionRecord("me", 6, now, now, 2));

    assertThat(interleaved).as("the other thread read the Lease between this one's read and its write").isTrue();
    assertThat(took).as("a take carrying the version the other thread read").isFalse();
    assertThat(leases.readNamespacedLease(name, ns).execute().getSpec().getHolderIdentity())
        .as("the API server's Lease").isEqualTo("rival");
    assertThat(lock[0].term().isValid()).isFalse();
  }

  /**
   * Seen once in LeaseFlowControlIT on a loaded machine: the elector's take wrote the Lease, then its
   * check of the bucket Leases failed (its own timeout interrupted it) while the campaign, on the other
   * thread, read the Lease naming this replica and wrote it again as a renewal. The failed take gave
   * the Lease back and ended the term for good, the term the campaign had just been granted: the
   * replica counted its leadership lost and exited. Now the campaign's write is a take, which waits
   * for the elector's to end, and a Lease given back leaves the term free to be granted by a later take.
   */
  @Test
  void aTakeThatFailsItsCheckLeavesTheReplicaFreeToTakeTheLeaseAgain(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    String ns = namespace.name();
    Race race = electorTakesAsTheCampaignWritesAgain(cluster, ns, "take-beside-take", () -> {
      throw new ApiException(0, "interrupted"); // what the interrupted read reported
    }, List.of());
    FencedLeaseLock lock = race.lock();

    assertThat(race.electorTook()).isFalse();
    assertThat(race.campaignTook()).as("the campaign's write, a take with the version from before the give-back")
        .isFalse();
    assertThat(lock.term().hasEnded()).isFalse();
    lock.get();
    Date now = new Date();
    assertThat(lock.update(new LeaderElectionRecord("me", 6, now, now, 3))).as("the next take").isTrue();
    assertThat(lock.term().isValid()).isTrue();
  }

  /**
   * The same race with a sharded replica's bucket taken while the elector took the Lease: the campaign
   * must not turn the elector's write into leadership by renewing it unchecked (the mode lock).
   */
  @Test
  void aLeaseWrittenByATakeUnderCheckIsNotRenewedUncheckedByTheOtherThread(LocalCluster cluster,
      TestNamespace namespace) throws Exception {
    String ns = namespace.name();
    String name = "renewal-beside-take";
    V1Lease held = new V1Lease().metadata(new V1ObjectMeta().name("steward-bucket-0").resourceVersion("1"))
        .spec(new V1LeaseSpec().holderIdentity("sharded-replica"));
    Race race = electorTakesAsTheCampaignWritesAgain(cluster, ns, name, () -> List.of(held), List.of(held));

    assertThat(race.electorTook()).isFalse();
    assertThat(race.campaignTook()).as("the campaign's write").isFalse();
    assertThat(race.lock().term().isValid()).isFalse();
    assertThat(new CoordinationV1Api(cluster.adminClient()).readNamespacedLease(name, ns).execute().getSpec()
        .getHolderIdentity()).as("the API server's Lease: given back").isNullOrEmpty();
  }

  private record Race(FencedLeaseLock lock, boolean electorTook, boolean campaignTook) {}

  /**
   * The elector takes the free Lease on this thread; its check after the write is where the campaign
   * writes the Lease again ({@link #campaignWritesAgain}), and then answers {@code check}; the
   * campaign's own checks find {@code later}.
   */
  private static Race electorTakesAsTheCampaignWritesAgain(LocalCluster cluster, String ns, String name,
      RivalLeases.Source check, List<V1Lease> later) throws Exception {
    FencedLeaseLock[] lock = new FencedLeaseLock[1];
    AtomicInteger reads = new AtomicInteger();
    List<CompletableFuture<Boolean>> campaign = new ArrayList<>();
    RivalLeases.Source buckets = () -> switch (reads.incrementAndGet()) {
      case 1 -> List.of();
      case 2 -> {
        campaign.add(campaignWritesAgain(lock[0]));
        yield check.read();
      }
      default -> later;
    };
    lock[0] = freeLeaseAndLock(cluster, ns, name, buckets);
    lock[0].get();
    Date now = new Date();
    boolean electorTook = lock[0].update(new LeaderElectionRecord("me", 6, now, now, 2));
    return new Race(lock[0], electorTook, campaign.get(0).join());
  }

  /**
   * On another thread, as the campaign does: reads the Lease (it names this replica: the elector's
   * take just wrote it), then writes it again. Given two seconds to land before the elector's check
   * goes on, which it does unless it waits for the elector's take to end; then it is left running.
   */
  private static CompletableFuture<Boolean> campaignWritesAgain(FencedLeaseLock lock) {
    ExecutorService campaignThread = Executors.newSingleThreadExecutor(); // the lock keeps a read per thread
    CompletableFuture.runAsync(() -> {
      try {
        assertThat(lock.get().getHolderIdentity()).isEqualTo("me");
      } catch (ApiException e) {
        throw new AssertionError(e);
      }
    }, campaignThread).join();
    CompletableFuture<Boolean> write = CompletableFuture.supplyAsync(() -> {
      Date now = new Date();
      return lock.update(new LeaderElectionRecord("me", 6, now, now, 2));
    }, campaignThread);
    campaignThread.shutdown(); // after the write
    try {
      write.get(2, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      // waiting for the take on this thread to end
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError(e);
    }
    return write;
  }

  @Test
  void theElectorsReleaseFromAThreadThatNeverReadTheLeaseReleasesIt(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    String ns = namespace.name();
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    String name = "released-elsewhere";
    FencedLeaseLock lock = takenByMe(cluster, ns, name);

    boolean released = CompletableFuture.supplyAsync(() -> lock.update(electorsRelease())).join();

    assertThat(released).isTrue();
    assertThat(leases.readNamespacedLease(name, ns).execute().getSpec().getHolderIdentity()).isNullOrEmpty();
  }

  @Test
  void aReleaseLeavesALeaseAnotherReplicaTookMeanwhile(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    String ns = namespace.name();
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    String name = "taken-before-release";
    FencedLeaseLock lock = takenByMe(cluster, ns, name);
    V1Lease taken = leases.readNamespacedLease(name, ns).execute();
    taken.getSpec().holderIdentity("rival").leaseTransitions(3);
    leases.replaceNamespacedLease(name, ns, taken).execute();

    boolean released = CompletableFuture.supplyAsync(() -> lock.update(electorsRelease())).join();

    assertThat(released).isFalse();
    assertThat(leases.readNamespacedLease(name, ns).execute().getSpec().getHolderIdentity()).isEqualTo("rival");
  }

  /**
   * A holder renews without reading the Lease first (as client-go does): the renewal must carry the
   * version its last write was answered with, so that the API server refuses it when anyone wrote the
   * Lease since; the next attempt then reads the Lease and renews with the version read.
   */
  @Test
  void aRenewalWithoutAReadIsRefusedWhenTheLeaseWasWrittenSinceAndTheNextOneReadsIt(LocalCluster cluster,
      TestNamespace namespace) throws Exception {
    String ns = namespace.name();
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    String name = "written-between-renewals";
    FencedLeaseLock lock = takenByMe(cluster, ns, name);
    V1Lease touched = leases.readNamespacedLease(name, ns).execute();
    touched.getMetadata().putLabelsItem("touched-by", "an-admin");
    leases.replaceNamespacedLease(name, ns, touched).execute();
    long mark = cluster.auditLog().size();

    LeaderElectionRecord held = lock.get();
    boolean renewed = lock.update(new LeaderElectionRecord("me", 6, held.getAcquireTime(), new Date(),
        held.getLeaderTransitions()));
    assertThat(renewed).as("a renewal with the version of the take, written over since").isFalse();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(cluster.auditLog().entriesAfter(mark,
        e -> "leases".equals(e.resource()) && name.equals(e.name()) && ns.equals(e.namespace())))
        .extracting(e -> e.verb() + " " + e.code()).as("what the API server was sent and answered")
        .containsExactly("update 409"));

    held = lock.get();
    assertThat(lock.update(new LeaderElectionRecord("me", 6, held.getAcquireTime(), new Date(),
        held.getLeaderTransitions()))).as("the next renewal, after a read").isTrue();
    assertThat(lock.term().isValid()).isTrue();
    assertThat(leases.readNamespacedLease(name, ns).execute().getMetadata().getLabels())
        .as("the other writer's change, kept").containsEntry("touched-by", "an-admin");
  }

  private static FencedLeaseLock takenByMe(LocalCluster cluster, String ns, String name) throws Exception {
    FencedLeaseLock lock = freeLeaseAndLock(cluster, ns, name, List::of);
    lock.get();
    Date now = new Date();
    assertThat(lock.update(new LeaderElectionRecord("me", 6, now, now, 2))).isTrue();
    return lock;
  }

  /** What client-java's elector writes when it is closed while leading. */
  private static LeaderElectionRecord electorsRelease() {
    LeaderElectionRecord release = new LeaderElectionRecord();
    release.setLeaseDurationSeconds((int) LEASE.toSeconds());
    release.setLeaderTransitions(2);
    return release;
  }

  /** A free Lease, and this replica's lock on it, one client-java lock per calling thread as in production. */
  private static FencedLeaseLock freeLeaseAndLock(LocalCluster cluster, String ns, String name,
      RivalLeases.Source buckets) throws Exception {
    ApiClient client = cluster.adminClient();
    new CoordinationV1Api(client).createNamespacedLease(ns, new V1Lease().metadata(new V1ObjectMeta().name(name))
        .spec(new V1LeaseSpec().holderIdentity("").leaseDurationSeconds(6).leaseTransitions(1))).execute();
    return new FencedLeaseLock(() -> new LeaseLock(ns, name, "me", client),
        LeaseTerm.forLease(Duration.ofSeconds(4), Duration.ofSeconds(1), System::nanoTime), LEASE,
        new RivalLeases(buckets, LEASE));
  }
}
