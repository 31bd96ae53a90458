package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.steward.operator.runtime.support.Daemons;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TermWatchdogTest {
  private final ScheduledExecutorService timer = Daemons.scheduler("term-watchdog-test");

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  /**
   * A term renewed every retry period for a second and then no more: the watchdog says nothing while
   * it is renewed, says "over" once its end has passed and soon after, and looks at the term a few
   * times, not every few milliseconds. Fails on a poll (the old 50 ms one looked 20 times a second),
   * on a timer that is not set again after a renewal (it would never fire), and on one that fires early.
   */
  @Test
  void sayingOverAtTheTermsEndWithoutPolling() throws Exception {
    // A term of renew deadline less a margin: 1,500 - 500 = 1,000 ms after each renewal's send.
    LeaseTerm term = LeaseTerm.forLease(Duration.ofMillis(1500), Duration.ofMillis(200), System::nanoTime);
    CountDownLatch over = new CountDownLatch(1);
    long[] overAt = new long[1];
    TermWatchdog watchdog = new TermWatchdog(term, () -> {
      overAt[0] = System.nanoTime();
      over.countDown();
    }, timer);
    watchdog.start();
    Thread.sleep(600); // no term yet: nothing to say
    assertThat(over.getCount()).as("over before any term was granted").isOne();

    long lastSent = 0;
    long renewingUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2500);
    while (System.nanoTime() < renewingUntil) {
      lastSent = term.now();
      term.renewed(lastSent);
      Thread.sleep(200);
    }
    long checksWhileRenewed = watchdog.checks();
    assertThat(over.getCount()).as("over while renewed every 200 ms").isOne();

    assertThat(over.await(5, TimeUnit.SECONDS)).as("over once renewals stopped").isTrue();
    long afterEnd = overAt[0] - (lastSent + term.length().toNanos());
    assertThat(afterEnd).as("from the term's end to the watchdog's word, ns").isNotNegative()
        .isLessThan(TimeUnit.MILLISECONDS.toNanos(500));
    // 3.1 s: a look every 250 ms before the term (3), then about one per second of term (3); a
    // 50 ms poll would have looked about 60 times.
    assertThat(checksWhileRenewed).as("looks at the term in 3.1 s").isLessThan(12);
  }
}
