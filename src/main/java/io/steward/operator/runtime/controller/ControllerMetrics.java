package io.steward.operator.runtime.controller;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The controller's metrics under controller-runtime's names, so dashboards and alerts written for
 * Go operators work unchanged: reconcile counts by result, errors, reconcile time, active and
 * maximum workers, and the work queue's depth, adds, retries, queue and work durations.
 */
public final class ControllerMetrics {
  public static final String SUCCESS = "success";
  public static final String ERROR = "error";
  public static final String REQUEUE = "requeue";
  public static final String REQUEUE_AFTER = "requeue_after";

  private final Map<String, Counter> reconciles = new LinkedHashMap<>();
  private final Counter errors;
  private final Timer reconcileTime;
  private final AtomicInteger activeWorkers = new AtomicInteger();
  private final Counter adds;
  private final Counter retries;
  private final Timer queueDuration;
  private final Timer workDuration;

  public ControllerMetrics(MeterRegistry registry, String controller, int maxWorkers) {
    for (String result : new String[] {SUCCESS, ERROR, REQUEUE, REQUEUE_AFTER}) {
      reconciles.put(result, Counter.builder("controller_runtime_reconcile")
          .description("Total number of reconciliations per controller")
          .tags("controller", controller, "result", result).register(registry));
    }
    errors = Counter.builder("controller_runtime_reconcile_errors")
        .description("Total number of reconciliation errors per controller").tag("controller", controller)
        .register(registry);
    reconcileTime = Timer.builder("controller_runtime_reconcile_time")
        .description("Length of time per reconciliation per controller").tag("controller", controller)
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(60)).register(registry);
    Gauge.builder("controller_runtime_active_workers", activeWorkers, AtomicInteger::get)
        .description("Number of currently used workers per controller").tag("controller", controller)
        .register(registry);
    Gauge.builder("controller_runtime_max_concurrent_reconciles", () -> maxWorkers)
        .description("Maximum number of concurrent reconciles per controller").tag("controller", controller)
        .register(registry);
    adds = Counter.builder("workqueue_adds").description("Total number of adds handled by workqueue")
        .tag("name", controller).register(registry);
    retries = Counter.builder("workqueue_retries").description("Total number of retries handled by workqueue")
        .tag("name", controller).register(registry);
    queueDuration = Timer.builder("workqueue_queue_duration")
        .description("How long in seconds an item stays in workqueue before being requested")
        .tag("name", controller).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(60)).register(registry);
    workDuration = Timer.builder("workqueue_work_duration")
        .description("How long in seconds processing an item from workqueue takes")
        .tag("name", controller).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(60)).register(registry);
  }

  /** Registers the queue-depth gauge once the queue exists. */
  public void watchQueueDepth(MeterRegistry registry, String controller, Supplier<Number> depth) {
    Gauge.builder("workqueue_depth", depth).description("Current depth of workqueue").tag("name", controller)
        .register(registry);
  }

  void reconcileStarted() {
    activeWorkers.incrementAndGet();
  }

  void reconcileFinished(String result, long nanos) {
    activeWorkers.decrementAndGet();
    reconciles.get(result).increment();
    if (ERROR.equals(result)) {
      errors.increment();
    }
    reconcileTime.record(nanos, TimeUnit.NANOSECONDS);
  }

  void added() {
    adds.increment();
  }

  void retried() {
    retries.increment();
  }

  void waited(long nanos) {
    queueDuration.record(nanos, TimeUnit.NANOSECONDS);
  }

  void worked(long nanos) {
    workDuration.record(nanos, TimeUnit.NANOSECONDS);
  }

  public int activeWorkers() {
    return activeWorkers.get();
  }

  /** Reconcile passes by result: each pass counts once, under the result it ended with. */
  public Map<String, Long> reconcilesByResult() {
    Map<String, Long> counts = new LinkedHashMap<>();
    reconciles.forEach((result, counter) -> counts.put(result, (long) counter.count()));
    return counts;
  }

  /** Reconcile passes so far, whatever their result. */
  public long reconciles() {
    return reconciles.values().stream().mapToLong(counter -> (long) counter.count()).sum();
  }

  /** Passes that ended in an error (also counted under the error result). */
  public long errors() {
    return (long) errors.count();
  }

  /** Requests the queue took back for a rate-limited retry: not passes, but what some passes asked for. */
  public long retries() {
    return (long) retries.count();
  }
}
