package io.steward.operator.runtime.support;

import java.time.Duration;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The work running right now (reconciles, Actuator's requests), as parties of a {@link Phaser}: each
 * piece registers when it starts and leaves when it ends, so a graceful stop waits on exactly the
 * work in flight and wakes the moment the last one ends.
 */
public final class WorkInFlight {
  /** One party stays registered: whoever awaits, so the phaser never terminates on its own. */
  private final Phaser phaser = new Phaser(1);

  public void started() {
    phaser.register();
  }

  public void finished() {
    phaser.arriveAndDeregister();
  }

  /**
   * Waits until all the work running now has ended, or {@code timeout} has passed; returns how many
   * pieces still run (zero once all ended). Called once, by the graceful stop.
   */
  public int awaitFinished(Duration timeout) throws InterruptedException {
    int phase = phaser.arrive();
    try {
      phaser.awaitAdvanceInterruptibly(phase, timeout.toNanos(), TimeUnit.NANOSECONDS);
      return 0;
    } catch (TimeoutException e) {
      return phaser.getUnarrivedParties();
    }
  }
}
