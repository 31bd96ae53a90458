package io.steward.operator.runtime.election;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * This replica's term as leader, judged by the monotonic clock only: it lasts until the renew
 * deadline (less a margin) after the instant its last successful Lease write was <em>sent</em>.
 *
 * <p>Why that bound is safe: another replica may take the Lease only after it has seen the record
 * unchanged for a whole lease duration, and it can see a write only after the write was sent. So
 * from the send instant, no one else leads for at least the lease duration; the term ends well
 * before. The margin covers a write that passed the guard just before the end and is still on its
 * way; the gap between renew deadline and lease duration covers the rest. Wall-clock time plays no
 * part, so a clock step changes nothing, and a paused process finds its term over when it resumes.
 */
public final class LeaseTerm {
  private static final long NONE = Long.MIN_VALUE;

  private final Duration length;
  private final LongSupplier nanoClock;
  private final boolean fenced;
  /** Monotonic instant (nanos) until which writes are allowed; NONE when there is no term. */
  private final AtomicLong validUntil = new AtomicLong(NONE);
  private volatile boolean everGranted;
  private volatile boolean ended;
  /** Writes sent before this monotonic instant grant nothing ({@link #revoke}); NONE when never revoked. */
  private long revokedAt = NONE;

  private LeaseTerm(Duration length, LongSupplier nanoClock, boolean fenced) {
    this.length = length;
    this.nanoClock = nanoClock;
    this.fenced = fenced;
  }

  /**
   * A term for a leader-elected replica: {@code renewDeadline} less a margin of half the time left
   * between it and the retry period, at most half a second. The margin keeps at least one renewal
   * attempt inside every term.
   */
  public static LeaseTerm forLease(Duration renewDeadline, Duration retryPeriod, LongSupplier nanoClock) {
    Duration margin = min(Duration.ofMillis(500), renewDeadline.minus(retryPeriod).dividedBy(2));
    return new LeaseTerm(renewDeadline.minus(margin), nanoClock, true);
  }

  /** No leader election: the only replica may always write. */
  public static LeaseTerm unfenced() {
    return new LeaseTerm(Duration.ZERO, System::nanoTime, false);
  }

  /** The monotonic instant to pass to {@link #renewed} for a Lease write about to be sent. */
  public long now() {
    return nanoClock.getAsLong();
  }

  /** A Lease write sent at {@code sentAt} succeeded and names this replica as holder. */
  public synchronized void renewed(long sentAt) {
    if (ended || (revokedAt != NONE && sentAt - revokedAt < 0)) {
      return;
    }
    long until = sentAt + length.toNanos();
    validUntil.accumulateAndGet(until, (current, next) -> current == NONE ? next : Math.max(current, next));
    everGranted = true;
  }

  /**
   * The term ends now, for good: the Lease is being released, or was lost and the process is on its
   * way out. A renewal still in flight cannot bring it back.
   */
  public synchronized void end() {
    ended = true;
    validUntil.set(NONE);
  }

  /**
   * No term now, and none from a Lease write sent before now: the Lease a take has just written is
   * being given back. Unlike {@link #end}, a take sent later may grant a term again.
   */
  public synchronized void revoke() {
    revokedAt = nanoClock.getAsLong();
    validUntil.set(NONE);
  }

  /** True once {@link #end} was called: no renewal can grant this term again. */
  public boolean hasEnded() {
    return ended;
  }

  /** True while this replica may write. */
  public boolean isValid() {
    if (!fenced) {
      return true;
    }
    long until = validUntil.get();
    return until != NONE && nanoClock.getAsLong() - until < 0;
  }

  /** True once a term was granted and it is over (expired or ended). */
  public boolean isOver() {
    return fenced && everGranted && !isValid();
  }

  /** How long a term lasts after the send of its last Lease write. */
  public Duration length() {
    return length;
  }

  /** Time left in the term; zero when there is none. */
  public Duration remaining() {
    long until = validUntil.get();
    if (!fenced || until == NONE) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.max(0, until - nanoClock.getAsLong()));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
