package io.steward.operator.runtime.election;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Declares a leader's term over the moment it runs out, whatever the elector thinks. One timer set
 * for the term's end, set again further on when a renewal has moved the end, rather than a poll: a
 * leader at rest wakes about once per term, not many times a second. Until a term is granted it
 * looks now and then whether one was; a term lasts far longer than that, so its end is still met.
 * After a pause the timer is overdue and fires at once.
 */
final class TermWatchdog {
  /** How often a replica holding no term looks whether one was granted. */
  static final Duration UNGRANTED_CHECK = Duration.ofMillis(250);
  private static final long LEAST_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final LeaseTerm term;
  private final Runnable over;
  private final ScheduledExecutorService timer;
  private final AtomicLong checks = new AtomicLong();

  /** {@code over} runs once, on {@code timer}'s thread, when a granted term is over. */
  TermWatchdog(LeaseTerm term, Runnable over, ScheduledExecutorService timer) {
    this.term = term;
    this.over = over;
    this.timer = timer;
  }

  void start() {
    schedule(UNGRANTED_CHECK.toNanos());
  }

  /** How many times it has looked at the term so far. */
  long checks() {
    return checks.get();
  }

  private void check() {
    checks.incrementAndGet();
    if (term.isOver()) {
      over.run();
      return;
    }
    schedule(term.isValid() ? term.remaining().toNanos() : UNGRANTED_CHECK.toNanos());
  }

  private void schedule(long delayNanos) {
    try {
      timer.schedule(this::check, Math.max(LEAST_DELAY_NANOS, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // shut down: the term was ended on purpose
    }
  }
}
