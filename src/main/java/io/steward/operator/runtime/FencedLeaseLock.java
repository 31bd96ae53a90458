package io.steward.operator.runtime;

import io.kubernetes.client.extended.leaderelection.LeaderElectionRecord;
import io.kubernetes.client.extended.leaderelection.Lock;
import io.kubernetes.client.openapi.ApiException;
import io.steward.operator.runtime.RivalLeases.Reading;
import java.time.Duration;
import java.util.Date;
import java.util.Objects;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * client-java's Lease lock, wrapped so that client-java's {@code LeaderElector} keeps running the
 * campaign and the renewals while the monotonic clock decides what they may do:
 *
 * <ul>
 *   <li>every successful write that names this replica as holder extends its {@link LeaseTerm}
 *       from the instant the request was sent;
 *   <li>taking the Lease from another holder is refused unless this replica has seen that holder's
 *       record unchanged for a whole lease duration by the monotonic clock (the elector judges
 *       expiry by the wall clock, which a clock step moves);
 *   <li>a release (an empty holder) ends the term before it is sent;
 *   <li>the Lease is taken only while no {@link RivalLeases rival Lease} (a sharded replica's bucket)
 *       is held, and kept only if none was taken while it was being written: a leader and sharded
 *       replicas never write side by side during a switch between the modes.
 * </ul>
 *
 * The elector and {@link LeaseCampaign} share one lock. Requests are not serialised: client-java's
 * elector abandons (interrupts) an attempt that outlasts its retry period, and a campaign renewal
 * must not queue behind it. Concurrent writes are safe: each carries the resourceVersion it read,
 * so the API server lets one through and refuses the other (409).
 */
public final class FencedLeaseLock implements Lock {
  private static final Logger log = LoggerFactory.getLogger(FencedLeaseLock.class);

  private final Lock delegate;
  private final LeaseTerm term;
  private final Duration leaseDuration;
  private final RivalLeases rivals;
  private volatile String refusedFor = "";

  private Observed observed;

  /** A holder's record as last read, and the monotonic instant it was first seen in that state. */
  private record Observed(String holder, Date renewTime, Date acquireTime, int transitions, long since) {
    boolean sameAs(LeaderElectionRecord record) {
      return Objects.equals(holder, record.getHolderIdentity()) && Objects.equals(renewTime, record.getRenewTime())
          && Objects.equals(acquireTime, record.getAcquireTime()) && transitions == record.getLeaderTransitions();
    }
  }

  /** Only with the local guard off (tests): then the elector's wall clock alone decides takeovers. */
  private volatile boolean takeoverVeto = true;

  public FencedLeaseLock(Lock delegate, LeaseTerm term, Duration leaseDuration, RivalLeases rivals) {
    this.delegate = delegate;
    this.term = term;
    this.leaseDuration = leaseDuration;
    this.rivals = rivals;
  }

  @Override
  public LeaderElectionRecord get() throws ApiException {
    long readAt = term.now();
    LeaderElectionRecord record = delegate.get();
    synchronized (this) {
      if (observed == null || !observed.sameAs(record)) {
        // Counted from before the read: the record may have changed just after we sent it.
        observed = new Observed(record.getHolderIdentity(), record.getRenewTime(), record.getAcquireTime(),
            record.getLeaderTransitions(), readAt);
      }
    }
    return record;
  }

  @Override
  public boolean create(LeaderElectionRecord record) {
    if (!isMine(record)) {
      return delegate.create(record);
    }
    return acquire(record, delegate::create);
  }

  @Override
  public boolean update(LeaderElectionRecord record) {
    if (!isMine(record)) {
      term.end(); // a release: stop writing before the Lease says anyone else may
      return delegate.update(record);
    }
    if (takeoverVeto && !mayTakeOver()) {
      return false;
    }
    if (!renewing()) {
      return acquire(record, delegate::update);
    }
    long sentAt = term.now();
    boolean updated = delegate.update(record);
    if (updated) {
      term.renewed(sentAt);
    }
    return updated;
  }

  private synchronized boolean renewing() {
    return observed != null && identity().equals(observed.holder());
  }

  /** Takes the Lease when no rival Lease is held, and keeps it when none was taken meanwhile. */
  private boolean acquire(LeaderElectionRecord record, Predicate<LeaderElectionRecord> write) {
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
    if (!write.test(record)) {
      return false;
    }
    try {
      Reading after = rivals.read();
      if (!after.takenSince(before)) {
        refusedFor = "";
        term.renewed(sentAt);
        return true;
      }
      refused("a sharded replica took a bucket Lease while this one took the leader Lease " + after.describeHeld());
    } catch (ApiException e) {
      refused("the bucket Leases could not be read again after taking the leader Lease (HTTP " + e.getCode() + ")");
    }
    // Given back at once, so the sharded replicas need not wait for it to expire.
    delegate.update(new LeaderElectionRecord("", record.getLeaseDurationSeconds(), record.getAcquireTime(),
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

  /** Whether the Lease, as last read, is this replica's, free, or expired by the monotonic clock. */
  synchronized boolean mayTakeOver() {
    if (observed == null || observed.holder() == null || observed.holder().isEmpty()
        || observed.holder().equals(identity())) {
      return true;
    }
    return term.now() - observed.since() >= leaseDuration.toNanos();
  }

  void withoutTakeoverVeto() {
    takeoverVeto = false;
  }

  LeaseTerm term() {
    return term;
  }

  @Override
  public String identity() {
    return delegate.identity();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  private boolean isMine(LeaderElectionRecord record) {
    return identity().equals(record.getHolderIdentity());
  }
}
