package io.steward.operator.runtime.controller;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import io.steward.operator.runtime.support.Daemons;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * client-java's {@link DefaultRateLimitingQueue} (de-duplicating, rate-limited) with client-go's
 * work-queue metrics, fair turns between namespaces and a low-priority lane, as controller-runtime's
 * priority queue has. Items wait in lanes here and enter the parent queue only while it holds fewer
 * than {@code depth}: normal items (changes, new objects, retries) in one lane per namespace, the
 * lanes taking turns; low-priority items (initial list, re-lists, resync) only when no normal one
 * waits. Delayed adds are scheduled here, since the parent's delay loop would bypass the lanes.
 */
public final class InstrumentedWorkQueue extends DefaultRateLimitingQueue<Request> {
  private final RateLimiter<Request> rateLimiter;
  private final ControllerMetrics metrics;
  private final int depth;
  private final ScheduledExecutorService delays;
  private final Map<Request, Long> waitingSince = new ConcurrentHashMap<>();
  private final Map<Request, Long> workingSince = new ConcurrentHashMap<>();
  /** Guards the lanes; taken before the parent's lock, never inside it. */
  private final Object lanes = new Object();
  /** Normal items by namespace; the first lane has the next turn. */
  private final LinkedHashMap<String, LinkedHashSet<Request>> byNamespace = new LinkedHashMap<>();
  private int normalWaiting;
  private final LinkedHashSet<Request> lowPriority = new LinkedHashSet<>();

  /**
   * @param depth how many items the parent queue may hold; at least one. One keeps every worker
   *     busy (a worker's take admits the next item) and makes a new item wait least.
   */
  public InstrumentedWorkQueue(RateLimiter<Request> rateLimiter, ControllerMetrics metrics, int depth) {
    super(Executors.newSingleThreadExecutor(Daemons.named("workqueue-parent-delays")), rateLimiter);
    if (depth < 1) {
      throw new IllegalArgumentException("depth must be at least 1, not " + depth);
    }
    this.rateLimiter = rateLimiter;
    this.metrics = metrics;
    this.depth = depth;
    this.delays = Daemons.scheduler("workqueue-delays");
  }

  /**
   * Normal priority: a change someone made, a new object, a retry. Takes the item out of the
   * low-priority lane; an item that waits in its namespace's lane or in the queue keeps its place.
   */
  @Override
  public void add(Request item) {
    if (isShuttingDown()) {
      return;
    }
    synchronized (lanes) {
      boolean wasLowPriority = lowPriority.remove(item);
      if (waiting(item) || wasLowPriority) {
        if (byNamespace.computeIfAbsent(namespaceOf(item), n -> new LinkedHashSet<>()).add(item)) {
          normalWaiting++;
        }
      }
    }
    admit();
  }

  /**
   * Low priority: state that is most likely handled already. An item that is waiting anyway, in the
   * queue or in a lane, keeps its place.
   */
  public void addLowPriority(Request item) {
    if (isShuttingDown()) {
      return;
    }
    synchronized (lanes) {
      if (!waiting(item)) {
        return;
      }
      lowPriority.add(item);
    }
    admit();
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
      admit();
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

  /**
   * How many waiting items (in the queue or in a lane) pass {@code which}: a gauge's way to split the
   * depth, by bucket for instance. Walks the waiting items, so it is for scrapes, not for every pass.
   */
  public int countWaiting(Predicate<Request> which) {
    int count = 0;
    for (Request item : waitingSince.keySet()) {
      if (which.test(item)) {
        count++;
      }
    }
    return count;
  }

  /** Items waiting: in the queue, and in the lanes. */
  @Override
  public int length() {
    synchronized (lanes) {
      return super.length() + normalWaiting + lowPriority.size();
    }
  }

  @Override
  public void shutDown() {
    super.shutDown();
    delays.shutdownNow();
    synchronized (lanes) {
      byNamespace.clear();
      normalWaiting = 0;
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

  /**
   * Moves items from the lanes into the queue while it holds fewer than {@code depth}: the next
   * namespace's oldest normal item, the namespace then going to the back of the turn; low-priority
   * items only when no normal one waits.
   */
  private void admit() {
    synchronized (lanes) {
      while (super.length() < depth && normalWaiting > 0) {
        Iterator<Map.Entry<String, LinkedHashSet<Request>>> turns = byNamespace.entrySet().iterator();
        Map.Entry<String, LinkedHashSet<Request>> turn = turns.next();
        turns.remove();
        Iterator<Request> oldest = turn.getValue().iterator();
        Request item = oldest.next();
        oldest.remove();
        normalWaiting--;
        if (!turn.getValue().isEmpty()) {
          byNamespace.put(turn.getKey(), turn.getValue());
        }
        super.add(item);
      }
      Iterator<Request> next = lowPriority.iterator();
      while (normalWaiting == 0 && next.hasNext() && super.length() < depth) {
        Request item = next.next();
        next.remove();
        super.add(item);
      }
    }
  }

  private static String namespaceOf(Request item) {
    return item.getNamespace() == null ? "" : item.getNamespace();
  }
}
