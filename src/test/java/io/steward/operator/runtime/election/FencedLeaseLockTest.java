package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.extended.leaderelection.LeaderElectionRecord;
import io.kubernetes.client.extended.leaderelection.Lock;
import io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Date;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lock's decisions, with an in-memory record standing in for the Lease (pure logic). */
class FencedLeaseLockTest {
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final LeaseTerm term = LeaseTerm.forLease(Duration.ofSeconds(4), Duration.ofSeconds(1), nanos::get);
  private final RecordingLock lease = new RecordingLock("me");
  /** The bucket Leases each read finds; the last answer repeats. */
  private final Deque<List<V1Lease>> buckets = new ArrayDeque<>(List.of(List.of()));
  private int bucketReads;
  private final FencedLeaseLock lock = new FencedLeaseLock(() -> lease, term, Duration.ofSeconds(6),
      new RivalLeases(() -> {
        bucketReads++;
        return buckets.size() > 1 ? buckets.poll() : buckets.peek();
      }, Duration.ofSeconds(6), nanos::get));

  @Test
  void aSuccessfulRenewalGrantsATermFromItsSendInstant() throws Exception {
    lease.record = record("me", 1);
    lock.get();
    lease.answerTakes = Duration.ofSeconds(1);
    assertThat(lock.update(record("me", 1))).isTrue();
    assertThat(term.remaining()).isEqualTo(Duration.ofMillis(2500));
  }

  @Test
  void anotherHoldersRecordMustStandStillForALeaseDurationByTheMonotonicClock() throws Exception {
    lease.record = record("other", 3);
    lock.get();
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    lock.get(); // unchanged
    assertThat(lock.update(record("me", 4))).as("the wall clock may say expired; the monotonic one does not").isFalse();
    assertThat(lease.updates).isEmpty();
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(lock.update(record("me", 4))).isTrue();
    assertThat(term.isValid()).isTrue();
  }

  @Test
  void theWaitCountsFromTheReadsAnswerNotItsSend() throws Exception {
    lease.record = record("other", 3);
    lease.answerTakes = Duration.ofSeconds(2); // the holder may have renewed while the read was on its way
    lock.get();
    lease.answerTakes = Duration.ZERO;
    nanos.addAndGet(Duration.ofMillis(4500).toNanos());
    assertThat(lock.update(record("me", 4))).as("six and a half seconds after the send, four and a half after the answer")
        .isFalse();
    nanos.addAndGet(Duration.ofMillis(1500).toNanos());
    assertThat(lock.update(record("me", 4))).isTrue();
  }

  @Test
  void aTakeIsJudgedOnTheCallingThreadsOwnReadNotOnAnotherThreadsAnsweredLater() throws Exception {
    lease.record = record("other", 3);
    lock.get();
    lease.record = new LeaderElectionRecord(); // an older state, answered to another thread after this one's read
    CompletableFuture.runAsync(this::read).join();
    lease.record = record("other", 3);
    assertThat(lock.update(record("me", 4))).isFalse();
    assertThat(lease.updates).isEmpty();
  }

  @Test
  void aRenewalIsJudgedOnTheCallingThreadsOwnRead() throws Exception {
    bucketReadsFind(List.of(bucketLease("steward-bucket-3", "sharded-a", "17"))); // this thread read it free
    lease.record = record("me", 1); // an older state, answered to another thread after this one's read
    CompletableFuture.runAsync(this::read).join();
    lease.record = new LeaderElectionRecord();
    assertThat(lock.update(record("me", 1))).as("a take, so the bucket Leases are checked").isFalse();
    assertThat(lease.updates).isEmpty();
  }

  @Test
  void aLeaseGivenBackLeavesNoTerm() throws Exception {
    lease.record = record("me", 1);
    lock.get();
    assertThat(lock.update(record("me", 1))).isTrue();
    // The other thread (the campaign's) reads the Lease emptied meanwhile and takes it.
    boolean took = CompletableFuture.supplyAsync(() -> {
      try {
        bucketReadsFind(List.of(), List.of(bucketLease("steward-bucket-3", "sharded-a", "18")));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      return lock.update(record("me", 2));
    }).join();
    assertThat(took).isFalse();
    assertThat(lease.updates).extracting(LeaderElectionRecord::getHolderIdentity).containsExactly("me", "me", "");
    assertThat(term.isValid()).as("no term for a Lease given back").isFalse();
  }

  private void read() {
    try {
      lock.get();
    } catch (ApiException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aChangeOfTheRecordRestartsTheWait() throws Exception {
    lease.record = record("other", 3);
    lock.get();
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    lease.record = record("other", 3);
    lease.record.setRenewTime(new Date(lease.record.getRenewTime().getTime() + 2000)); // renewed
    lock.get();
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    assertThat(lock.update(record("me", 4))).isFalse();
  }

  @Test
  void aRenewalSeenOnTheWatchCountsFromItsArrivalAndTheReadOfTheSameStateDoesNotRestartIt() throws Exception {
    V1Lease renewed = new V1Lease().metadata(new V1ObjectMeta().name("steward-leader").resourceVersion("41"))
        .spec(new V1LeaseSpec().holderIdentity("other").leaseDurationSeconds(6).leaseTransitions(3)
            .acquireTime(OffsetDateTime.parse("2026-12-04T20:00:00.123456Z"))
            .renewTime(OffsetDateTime.parse("2026-12-04T20:00:05.654321Z")));
    lock.sawOnWatch(renewed);
    assertThat(lock.nanosUntilExpiry()).hasValue(Duration.ofSeconds(6).toNanos());
    nanos.addAndGet(Duration.ofMillis(900).toNanos());
    lease.record = asClientJavaReads(renewed);
    lock.get();
    nanos.addAndGet(Duration.ofMillis(5100).toNanos());
    assertThat(lock.update(record("me", 4))).as("six seconds after the watch saw it, 5.1 s after the read").isTrue();
  }

  /** The record client-java's LeaseLock makes of a Lease it read (its own conversion, by reflection). */
  private static LeaderElectionRecord asClientJavaReads(V1Lease lease) throws Exception {
    var convert = LeaseLock.class.getDeclaredMethod("getRecordFromLease", V1LeaseSpec.class);
    convert.setAccessible(true);
    return (LeaderElectionRecord) convert.invoke(new LeaseLock("ns", "steward-leader", "me", new ApiClient()),
        lease.getSpec());
  }

  @Test
  void aReleasedLeaseMayBeTakenAtOnce() throws Exception {
    lease.record = new LeaderElectionRecord();
    lock.get();
    assertThat(lock.update(record("me", 1))).isTrue();
  }

  @Test
  void aReleaseEndsTheTermBeforeItIsSent() throws Exception {
    lease.record = record("me", 1);
    lock.get();
    lock.update(record("me", 1));
    lease.onUpdate = () -> assertThat(term.isValid()).as("valid while the release is on its way").isFalse();
    lock.update(new LeaderElectionRecord());
    assertThat(lease.updates).hasSize(2);
  }

  @Test
  void aLeaseTakenOnAnotherThreadIsGivenBackAtTheStop() throws Exception {
    // The campaign's thread takes it; the elector, which releases only what it saw itself hold, has not.
    CompletableFuture.runAsync(() -> {
      try {
        takeTheFreeLease();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }).join();
    lock.giveBack();
    assertThat(lease.updates).extracting(LeaderElectionRecord::getHolderIdentity).containsExactly("me", null);
    assertThat(lease.updates.get(1).getLeaderTransitions()).as("transitions kept").isEqualTo(1);
    assertThat(term.isValid()).isFalse();
  }

  @Test
  void aStopWhileATakeIsInFlightWaitsForItAndGivesTheLeaseBack() throws Exception {
    // The stop arrives while the take is on its way to the API server, which writes it afterwards.
    lease.record = new LeaderElectionRecord();
    CountDownLatch sending = new CountDownLatch(1);
    lease.onUpdate = () -> {
      lease.onUpdate = () -> {};
      sending.countDown();
      await().atMost(Duration.ofSeconds(10)).until(term::hasEnded);
    };
    CompletableFuture<Boolean> take = CompletableFuture.supplyAsync(() -> {
      try {
        lock.get(); // each thread's take is judged on its own read
      } catch (ApiException e) {
        throw new AssertionError(e);
      }
      return lock.update(record("me", 1));
    });
    assertThat(sending.await(10, TimeUnit.SECONDS)).as("the take was sent").isTrue();
    CompletableFuture<Void> stop = CompletableFuture.runAsync(lock::giveBack);
    assertThat(take.get(10, TimeUnit.SECONDS)).as("leadership granted to a take that lands after the stop").isFalse();
    stop.get(10, TimeUnit.SECONDS);
    assertThat(lease.updates).extracting(LeaderElectionRecord::getHolderIdentity).containsExactly("me", null);
    assertThat(term.isValid()).isFalse();
  }

  @Test
  void nothingIsGivenBackTwiceOrByAReplicaThatNeverLed() throws Exception {
    takeTheFreeLease();
    lock.update(new LeaderElectionRecord()); // the elector's own release
    int reads = lease.reads;
    lock.giveBack();
    assertThat(lease.updates).hasSize(2);
    assertThat(lease.reads).as("reads after the elector's release").isEqualTo(reads);

    FencedLeaseLock standby = new FencedLeaseLock(() -> lease, LeaseTerm.forLease(Duration.ofSeconds(4),
        Duration.ofSeconds(1), nanos::get), Duration.ofSeconds(6), new RivalLeases(List::of, Duration.ofSeconds(6), nanos::get));
    standby.giveBack();
    assertThat(lease.reads).as("reads by a replica that never led").isEqualTo(reads);
  }

  @Test
  void aReplicaWhoseTermEndedWritesTheLeaseNoMore() throws Exception {
    takeTheFreeLease();
    term.end(); // lost, or stopping
    assertThat(lock.update(record("me", 1))).as("a renewal").isFalse();
    lock.get();
    assertThat(lock.update(record("me", 1))).as("a take after reading the Lease naming this replica").isFalse();
    assertThat(lease.updates).hasSize(1);
  }

  @Test
  void aFailedRenewalGrantsNothing() throws Exception {
    lease.record = record("me", 1);
    lock.get();
    lease.refuse = true;
    assertThat(lock.update(record("me", 1))).isFalse();
    assertThat(term.isValid()).isFalse();
  }

  @Test
  void aHeldBucketLeaseKeepsTheLeaderLeaseUntouched() throws Exception {
    bucketReadsFind(List.of(bucketLease("steward-bucket-3", "sharded-a", "17")));
    assertThat(lock.update(record("me", 1))).isFalse();
    assertThat(lock.create(record("me", 1))).isFalse();
    assertThat(lease.updates).isEmpty();
    assertThat(term.isValid()).isFalse();
  }

  @Test
  void aBucketLeaseUnchangedForALeaseDurationNoLongerCounts() throws Exception {
    bucketReadsFind(List.of(bucketLease("steward-bucket-3", "sharded-a", "17")));
    assertThat(lock.update(record("me", 1))).isFalse();
    nanos.addAndGet(Duration.ofSeconds(6).toNanos());
    assertThat(lock.update(record("me", 1))).as("its holder stopped renewing a lease duration ago").isTrue();
    assertThat(term.isValid()).isTrue();
  }

  @Test
  void aBucketTakenWhileTheLeaseWasWrittenMakesItGiveTheLeaseBack() throws Exception {
    bucketReadsFind(List.of(bucketLease("steward-bucket-3", "", "17")),
        List.of(bucketLease("steward-bucket-3", "sharded-a", "18")));
    assertThat(lock.update(record("me", 1))).isFalse();
    assertThat(lease.updates).extracting(LeaderElectionRecord::getHolderIdentity).containsExactly("me", "");
    assertThat(term.isValid()).as("no term for a Lease given back").isFalse();
  }

  @Test
  void aHolderRenewsWithoutReadingTheLeaseWhileItsTermIsValid() throws Exception {
    takeTheFreeLease();
    for (int i = 0; i < 3; i++) {
      nanos.addAndGet(Duration.ofSeconds(1).toNanos());
      LeaderElectionRecord current = lock.get();
      assertThat(current.getHolderIdentity()).isEqualTo("me");
      assertThat(lock.update(record("me", current.getLeaderTransitions()))).isTrue();
    }
    assertThat(lease.reads).as("reads of the Lease: only the one before the take").isEqualTo(1);
    assertThat(lease.updates).hasSize(4);
    assertThat(term.remaining()).as("a whole term from the last renewal").isEqualTo(term.length());
  }

  @Test
  void aRefusedRenewalMakesTheNextAttemptReadTheLease() throws Exception {
    takeTheFreeLease();
    lease.record = record("me", 1); // written by someone else since (a label added, say): a new version
    lock.get();
    assertThat(lock.update(record("me", 1))).as("a renewal carrying the version of this replica's last write")
        .isFalse();
    lock.get();
    assertThat(lock.update(record("me", 1))).as("the next renewal, carrying the version just read").isTrue();
    assertThat(lease.reads).isEqualTo(2);
  }

  @Test
  void aLapsedTermMakesTheNextAttemptReadTheLease() throws Exception {
    takeTheFreeLease();
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());
    lock.get();
    assertThat(lease.reads).isEqualTo(2);
  }

  @Test
  void renewalsDoNotReadTheBucketLeases() throws Exception {
    takeTheFreeLease();
    int reads = bucketReads;
    lock.get();
    assertThat(lock.update(record("me", 1))).isTrue();
    assertThat(bucketReads).isEqualTo(reads);
  }

  /** The Lease read free and taken on this thread: a term granted from the take. */
  private void takeTheFreeLease() throws Exception {
    lease.record = new LeaderElectionRecord();
    lock.get();
    assertThat(lock.update(record("me", 1))).isTrue();
  }

  /** The leader Lease free, and what each read of the bucket Leases finds from now on. */
  @SafeVarargs
  private void bucketReadsFind(List<V1Lease>... answers) throws Exception {
    buckets.clear();
    buckets.addAll(List.of(answers));
    lease.record = new LeaderElectionRecord();
    lock.get();
  }

  private static V1Lease bucketLease(String name, String holder, String resourceVersion) {
    return new V1Lease().metadata(new V1ObjectMeta().name(name).resourceVersion(resourceVersion))
        .spec(new V1LeaseSpec().holderIdentity(holder));
  }

  private static LeaderElectionRecord record(String holder, int transitions) {
    Date now = new Date(1_700_000_000_000L);
    return new LeaderElectionRecord(holder, 6, now, now, transitions);
  }

  private final class RecordingLock implements Lock {
    private final String identity;
    LeaderElectionRecord record;
    Duration answerTakes = Duration.ZERO;
    boolean refuse;
    volatile Runnable onUpdate = () -> {};
    final List<LeaderElectionRecord> updates = new ArrayList<>();
    int reads;
    /**
     * The record each thread last read or wrote, standing for the resourceVersion client-java's lock
     * sends: a write is refused when the record was replaced since (by a test, as another writer).
     */
    private final ThreadLocal<LeaderElectionRecord> seen = new ThreadLocal<>();

    RecordingLock(String identity) {
      this.identity = identity;
    }

    @Override
    public LeaderElectionRecord get() {
      nanos.addAndGet(answerTakes.toNanos());
      reads++;
      seen.set(record);
      return record;
    }

    @Override
    public boolean create(LeaderElectionRecord next) {
      record = next;
      seen.set(next);
      return true;
    }

    @Override
    public boolean update(LeaderElectionRecord next) {
      onUpdate.run();
      nanos.addAndGet(answerTakes.toNanos());
      if (refuse || seen.get() != record) {
        return false;
      }
      updates.add(next);
      record = next;
      seen.set(next);
      return true;
    }

    @Override
    public String identity() {
      return identity;
    }

    @Override
    public String describe() {
      return "test/lease";
    }
  }
}
