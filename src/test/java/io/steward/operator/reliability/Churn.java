package io.steward.operator.reliability;

import io.kubernetes.client.openapi.ApiException;
import io.steward.operator.support.WebApps;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A user who keeps changing WebApps: picks one at random and bumps its image tag or replica count,
 * as fast as {@code pause} allows, until stopped or until {@code limit} changes. Bounded in count
 * and time; failures while the API server is away are counted, not fatal.
 */
public final class Churn implements AutoCloseable {
  private final WebApps webApps;
  private final List<String> names;
  private final Duration pause;
  private final int limit;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger changes = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();
  private final Thread thread;

  public Churn(WebApps webApps, List<String> names, Duration pause, int limit, long seed) {
    this.webApps = webApps;
    this.names = names;
    this.pause = pause;
    this.limit = limit;
    Random random = new Random(seed);
    this.thread = new Thread(() -> run(random), "churn");
    thread.setDaemon(true);
    thread.start();
  }

  private void run(Random random) {
    while (running.get() && changes.get() < limit) {
      String name = names.get(random.nextInt(names.size()));
      boolean image = random.nextBoolean();
      int value = 1 + random.nextInt(3);
      try {
        webApps.updateSpec(name, spec -> image ? spec.withImage("nginx:1." + (20 + random.nextInt(10)))
            : spec.withReplicas(value));
        changes.incrementAndGet();
      } catch (ApiException | RuntimeException e) {
        failures.incrementAndGet();
      }
      try {
        Thread.sleep(pause.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  public int changes() {
    return changes.get();
  }

  public int failures() {
    return failures.get();
  }

  @Override
  public void close() {
    running.set(false);
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
