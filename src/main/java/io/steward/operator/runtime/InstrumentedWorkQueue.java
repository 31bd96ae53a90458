package io.steward.operator.runtime;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * client-java's {@link DefaultRateLimitingQueue} (de-duplicating, rate-limited) with client-go's
 * work-queue metrics. Delayed adds are scheduled here rather than in the parent, whose delay loop
 * adds through {@code super.add} and so would bypass the accounting.
 */
public final class InstrumentedWorkQueue extends DefaultRateLimitingQueue<Request> {
  private final RateLimiter<Request> rateLimiter;
  private final ControllerMetrics metrics;
  private final ScheduledExecutorService delays;
  private final Map<Request, Long> waitingSince = new ConcurrentHashMap<>();
  private final Map<Request, Long> workingSince = new ConcurrentHashMap<>();

  public InstrumentedWorkQueue(RateLimiter<Request> rateLimiter, ControllerMetrics metrics) {
    super(Executors.newSingleThreadExecutor(daemon("workqueue-parent-delays")), rateLimiter);
    this.rateLimiter = rateLimiter;
    this.metrics = metrics;
    this.delays = Executors.newSingleThreadScheduledExecutor(daemon("workqueue-delays"));
  }

  @Override
  public void add(Request item) {
    if (isShuttingDown()) {
      return;
    }
    if (waitingSince.putIfAbsent(item, System.nanoTime()) == null) {
      metrics.added();
    }
    super.add(item);
  }

  @Override
  public void addAfter(Request item, Duration delay) {
    if (isShuttingDown()) {
      return;
    }
    if (delay.isZero() || delay.isNegative()) {
      add(item);
    } else {
      delays.schedule(() -> add(item), delay.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public void addRateLimited(Request item) {
    metrics.retried();
    addAfter(item, rateLimiter.when(item));
  }

  @Override
  public Request get() throws InterruptedException {
    Request item = super.get();
    if (item != null) {
      long now = System.nanoTime();
      Long since = waitingSince.remove(item);
      if (since != null) {
        metrics.waited(now - since);
      }
      workingSince.put(item, now);
    }
    return item;
  }

  @Override
  public void done(Request item) {
    Long since = workingSince.remove(item);
    if (since != null) {
      metrics.worked(System.nanoTime() - since);
    }
    super.done(item);
  }

  @Override
  public void shutDown() {
    super.shutDown();
    delays.shutdownNow();
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
