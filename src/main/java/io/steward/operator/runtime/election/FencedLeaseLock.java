package io.steward.operator.runtime.election;

import io.kubernetes.client.extended.leaderelection.LeaderElectionRecord;
import io.kubernetes.client.extended.leaderelection.Lock;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.steward.operator.runtime.election.RivalLeases.Reading;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Date;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * client-java's Lease lock, wrapped so that client-java's {@code LeaderElector} keeps campaigning and
 * renewing while the monotonic clock decides what it may do: each successful write naming this
 * replica extends its {@link LeaseTerm} from the instant it was sent; another holder's Lease is taken
 * only once this replica has seen it unchanged for a lease duration; a release ends the term before
 * it is sent, and nothing naming this replica is written after the term ended; and the Lease is taken
 * only while no {@link RivalLeases rival Lease} (a sharded replica's bucket) is held.
 *
 * <p>Each calling thread (the elector's, the {@link LeaseCampaign}'s) gets a client-java lock of its
 * own and is judged on its own last read: one shared lock sent one thread's take with another's
 * version. Takes are serialised, renewals are not. A holder renews without reading first, as
 * client-go does. Why each rule is needed: docs/fencing.md.
 */
public final class FencedLeaseLock implements Lock {
  private static final Logger log = LoggerFactory.getLogger(FencedLeaseLock.class);
  /** The one Lease this lock reads, as {@link LeaseExpiry} names it. */
  private static final String LEASE = "leader";

  /** Each calling thread's own client-java lock and its last read; see the class comment. */
  private final ThreadLocal<Caller> callers;
  private final Lock anyDelegate;
  private final LeaseTerm term;
  private final RivalLeases rivals;
  private final LeaseExpiry expiry;
  private final ReentrantLock takes = new ReentrantLock();
  private volatile String refusedFor = "";
  /** A take naming this replica was sent: the Lease may name it, whether or not a term was granted. */
  private volatile boolean takeSent;
  /** A release of the Lease was written: nothing is left to give back. */
  private volatile boolean released;

  /** What changes with each write of the record (it carries no resourceVersion). */
  private record RecordState(String holder, Date renewTime, Date acquireTime, int transitions) {
    static RecordState of(LeaderElectionRecord record) {
      return new RecordState(record.getHolderIdentity(), record.getRenewTime(), record.getAcquireTime(),
          record.getLeaderTransitions());
    }
  }

  /** One thread's view: its client-java lock, whose writes carry the version of its last read. */
  private static final class Caller {
    final Lock lock;
    /** The record this thread last read; null before its first read. */
    RecordState lastRead;
    /**
     * The record this thread's last write put in the Lease, naming this replica; null when that
     * write failed or was not a granted take or renewal, so the next attempt reads the Lease.
     */
    LeaderElectionRecord written;

    Caller(Lock lock) {
      this.lock = lock;
    }
  }

  /** Told each time a take is granted a term; see {@link #whenTaken}. */
  private volatile Runnable taken = () -> {};

  /** Only with the local guard off (tests): then the elector's wall clock alone decides takeovers. */
  private volatile boolean takeoverVeto = true;

  public FencedLeaseLock(Supplier<Lock> leaseLocks, LeaseTerm term, Duration leaseDuration, RivalLeases rivals) {
    this.callers = ThreadLocal.withInitial(() -> new Caller(leaseLocks.get()));
    this.anyDelegate = leaseLocks.get();
    this.term = term;
    this.rivals = rivals;
    this.expiry = new LeaseExpiry(leaseDuration, term::now);
  }

  @Override
  public LeaderElectionRecord get() throws ApiException {
    Caller caller = callers.get();
    LeaderElectionRecord written = caller.written;
    if (written != null && term.isValid()) {
      caller.lastRead = RecordState.of(written);
      return copy(written);
    }
    caller.written = null;
    LeaderElectionRecord record = caller.lock.get();
    caller.lastRead = RecordState.of(record);
    expiry.saw(LEASE, caller.lastRead, expiry.now());
    return record;
  }

  @Override
  public boolean create(LeaderElectionRecord record) {
    callers.get().written = null;
    if (!isMine(record)) {
      return delegate().create(record);
    }
    return acquire(record, delegate()::create);
  }

  @Override
  public boolean update(LeaderElectionRecord record) {
    callers.get().written = null;
    if (!isMine(record)) {
      term.end(); // a release: stop writing before the Lease says anyone else may
      return release(current -> record);
    }
    if (term.hasEnded()) {
      return false; // lost or stopping: a write now would only keep standbys waiting
    }
    if (takeoverVeto && !mayTakeOver()) {
      return false;
    }
    if (!renewing()) {
      return acquire(record, delegate()::update);
    }
    long sentAt = term.now();
    boolean updated = delegate().update(record);
    if (updated) {
      term.renewed(sentAt);
      callers.get().written = copy(record);
    }
    return updated;
  }

  /**
   * The elector releases from the thread that stops it, which may never have read the Lease: read
   * it on this thread first, so the release carries a version, and only while it still names this
   * replica.
   */
  private boolean release(UnaryOperator<LeaderElectionRecord> releaseOf) {
    LeaderElectionRecord current;
    try {
      current = delegate().get();
    } catch (ApiException e) {
      log.warn("Lease {} not released: it could not be read (HTTP {}); it expires instead", describe(), e.getCode());
      return false;
    }
    if (!isMine(current)) {
      return false;
    }
    boolean done = delegate().update(releaseOf.apply(current));
    released |= done;
    return done;
  }

  /**
   * Ends the term and gives the Lease back if it still names this replica and no release was written
   * yet. client-java's elector gives back only a Lease its own last attempt saw this replica hold,
   * so one that {@link LeaseCampaign} took shortly before a stop would otherwise stand until it
   * expired, and every standby would wait a lease duration. A take still in flight is waited for
   * (the API server may already have written it) for at most a lease duration, after which the
   * Lease would have expired anyway.
   */
  void giveBack() {
    term.end(); // no take starts from now on
    boolean waited = false;
    try {
      waited = takes.tryLock(expiry.leaseDuration().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      if (released || !takeSent) {
        return; // released already, or never took it: nothing to give back
      }
      release(current -> {
        LeaderElectionRecord free = new LeaderElectionRecord();
        free.setLeaseDurationSeconds(current.getLeaseDurationSeconds());
        free.setLeaderTransitions(current.getLeaderTransitions());
        return free;
      });
    } finally {
      if (waited) {
        takes.unlock();
      }
    }
  }

  /**
   * A renewal: this thread read the Lease naming this replica, and the term is valid. A Lease naming
   * this replica without a valid term was written by a take that has not passed its check yet (on the
   * other thread), or whose term ran out: writing it again is a take, checked as one.
   */
  private boolean renewing() {
    RecordState read = callers.get().lastRead;
    return read != null && identity().equals(read.holder()) && term.isValid();
  }

  /** Takes the Lease when no rival Lease is held, and keeps it when none was taken meanwhile. */
  private boolean acquire(LeaderElectionRecord record, Predicate<LeaderElectionRecord> write) {
    takes.lock();
    try {
      return checkedTake(record, write);
    } finally {
      takes.unlock();
    }
  }

  private boolean checkedTake(LeaderElectionRecord record, Predicate<LeaderElectionRecord> write) {
    if (term.hasEnded()) {
      return false; // stopping: checked again under the lock the give-back waits for
    }
    Reading before;
    try {
      before = rivals.read();
    } catch (ApiException e) {
      refused("the sharded mode's bucket Leases are not readable (HTTP " + e.getCode()
          + "; Steward's Role needs list on leases in its namespace)");
      return false;
    }
    if (before.anyHeld()) {
      refused("sharded replicas hold bucket Leases " + before.describeHeld());
      return false;
    }
    long sentAt = term.now();
    takeSent = true;
    if (!write.test(record)) {
      return false;
    }
    try {
      Reading after = rivals.read();
      if (term.hasEnded()) {
        return false; // stopped while the take was checked: the give-back, waiting for this, frees it
      }
      if (!after.takenSince(before)) {
        refusedFor = "";
        term.renewed(sentAt);
        callers.get().written = copy(record);
        taken.run();
        return true;
      }
      refused("a sharded replica took a bucket Lease while this one took the leader Lease " + after.describeHeld());
    } catch (ApiException e) {
      refused("the bucket Leases could not be read again after taking the leader Lease (HTTP " + e.getCode() + ")");
    }
    // Given back at once, so the sharded replicas need not wait for it to expire; no write sent until
    // now may grant a term (a later take may).
    term.revoke();
    delegate().update(new LeaderElectionRecord("", record.getLeaseDurationSeconds(), record.getAcquireTime(),
        record.getRenewTime(), record.getLeaderTransitions()));
    return false;
  }

  /** Logged once per reason, not at every retry. */
  private void refused(String why) {
    if (!why.equals(refusedFor)) {
      refusedFor = why;
      log.warn("Not leading: {}; trying again every retry period", why);
    }
  }

  /**
   * The Lease as a watch event delivered it: a sighting of its record made now, after the write that
   * produced it was committed, so at least as late as any read could have made it. The record is
   * taken from the Lease as client-java's {@code LeaseLock} takes it, so that a read of the same
   * state is the same sighting.
   */
  void sawOnWatch(V1Lease lease) {
    V1LeaseSpec spec = lease.getSpec();
    if (spec == null) {
      return;
    }
    RecordState state = new RecordState(spec.getHolderIdentity(), date(spec.getRenewTime()),
        date(spec.getAcquireTime()), spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions());
    expiry.saw(LEASE, state, expiry.now());
  }

  /** How long until the Lease, unchanged since it was last seen, expires; empty if it has or was never seen. */
  OptionalLong nanosUntilExpiry() {
    return expiry.nanosUntilFirstExpiry(List.of(LEASE));
  }

  private static LeaderElectionRecord copy(LeaderElectionRecord record) {
    return new LeaderElectionRecord(record.getHolderIdentity(), record.getLeaseDurationSeconds(),
        copy(record.getAcquireTime()), copy(record.getRenewTime()), record.getLeaderTransitions());
  }

  private static Date copy(Date date) {
    return date == null ? null : new Date(date.getTime());
  }

  private static Date date(OffsetDateTime time) {
    return time == null ? null : new Date(time.toInstant().toEpochMilli());
  }

  /**
   * Whether the Lease, as the calling thread last read it, is this replica's, free, or expired by
   * the monotonic clock: the state this thread read is the one that has stood still for a lease
   * duration. False before this thread's first read, whose version its write would carry.
   */
  boolean mayTakeOver() {
    RecordState read = callers.get().lastRead;
    if (read == null) {
      return false;
    }
    String holder = read.holder();
    return holder == null || holder.isEmpty() || holder.equals(identity()) || expiry.expired(LEASE, read);
  }

  /**
   * {@code listener} runs each time a take, by either thread, is granted a term: on the taking
   * thread, inside the take, so it must only hand the news on.
   */
  void whenTaken(Runnable listener) {
    this.taken = listener;
  }

  void withoutTakeoverVeto() {
    takeoverVeto = false;
  }

  LeaseTerm term() {
    return term;
  }

  /** The calling thread's own client-java lock. */
  private Lock delegate() {
    return callers.get().lock;
  }

  @Override
  public String identity() {
    return anyDelegate.identity();
  }

  @Override
  public String describe() {
    return anyDelegate.describe();
  }

  private boolean isMine(LeaderElectionRecord record) {
    return identity().equals(record.getHolderIdentity());
  }
}
