package io.steward.operator.runtime;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * client-java's {@link DefaultRateLimitingQueue} (de-duplicating, rate-limited) with client-go's
 * work-queue metrics and a low-priority lane, as in controller-runtime's default priority queue.
 *
 * <p>Low-priority items (the initial list, re-lists, the periodic resync: state Steward has most
 * likely handled already) wait in the lane, in order, and enter the queue only while it holds fewer
 * than {@code lowPriorityDepth} items. Anything added normally therefore waits behind at most that
 * many of them, not behind thousands. The lane's items count in {@link #length()} and in the queue
 * metrics from the moment they were added. As in controller-runtime, low-priority items wait for as
 * long as normal ones keep the queue that full.
 *
 * <p>Delayed adds are scheduled here rather than in the parent, whose delay loop adds through
 * {@code super.add} and so would bypass the accounting.
 */
public final class InstrumentedWorkQueue extends DefaultRateLimitingQueue<Request> {
  private final RateLimiter<Request> rateLimiter;
  private final ControllerMetrics metrics;
  private final int lowPriorityDepth;
  private final ScheduledExecutorService delays;
  private final Map<Request, Long> waitingSince = new ConcurrentHashMap<>();
  private final Map<Request, Long> workingSince = new ConcurrentHashMap<>();
  /** Guarded by itself; taken before the parent's lock, never inside it. */
  private final LinkedHashSet<Request> lowPriority = new LinkedHashSet<>();

  public InstrumentedWorkQueue(RateLimiter<Request> rateLimiter, ControllerMetrics metrics, int lowPriorityDepth) {
    super(Executors.newSingleThreadExecutor(Daemons.named("workqueue-parent-delays")), rateLimiter);
    if (lowPriorityDepth < 1) {
      throw new IllegalArgumentException("lowPriorityDepth must be at least 1, not " + lowPriorityDepth);
    }
    this.rateLimiter = rateLimiter;
    this.metrics = metrics;
    this.lowPriorityDepth = lowPriorityDepth;
    this.delays = Daemons.scheduler("workqueue-delays");
  }

  /** Normal priority: a change someone made, a new object, a retry. Takes the item out of the lane. */
  @Override
  public void add(Request item) {
    if (isShuttingDown()) {
      return;
    }
    synchronized (lowPriority) {
      lowPriority.remove(item);
      waiting(item);
    }
    super.add(item);
  }

  /**
   * Low priority: state that is most likely handled already. An item that is waiting anyway, in the
   * queue or in the lane, keeps its place.
   */
  public void addLowPriority(Request item) {
    if (isShuttingDown()) {
      return;
    }
    synchronized (lowPriority) {
      if (!waiting(item)) {
        return;
      }
      lowPriority.add(item);
    }
    admitLowPriority();
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
      admitLowPriority();
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

  /** Items waiting: in the queue, and in the low-priority lane. */
  @Override
  public int length() {
    synchronized (lowPriority) {
      return super.length() + lowPriority.size();
    }
  }

  @Override
  public void shutDown() {
    super.shutDown();
    delays.shutdownNow();
    synchronized (lowPriority) {
      lowPriority.clear();
    }
  }

  /** Records that {@code item} waits from now; false if it was waiting already. */
  private boolean waiting(Request item) {
    if (waitingSince.putIfAbsent(item, System.nanoTime()) == null) {
      metrics.added();
      return true;
    }
    return false;
  }

  /** Moves items from the lane into the queue while the queue holds fewer than lowPriorityDepth. */
  private void admitLowPriority() {
    synchronized (lowPriority) {
      Iterator<Request> next = lowPriority.iterator();
      while (next.hasNext() && super.length() < lowPriorityDepth) {
        Request item = next.next();
        next.remove();
        super.add(item);
      }
    }
  }

}
