package io.steward.operator.runtime.web;

import io.steward.operator.runtime.controller.ControllerMetrics;
import io.steward.operator.runtime.controller.InstrumentedWorkQueue;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/** {@code /actuator/reconciles}: reconcile counts by result and the queue's state, as plain JSON. */
@Endpoint(id = "reconciles")
public final class ReconcilesEndpoint {
  private final ControllerMetrics metrics;
  private final InstrumentedWorkQueue queue;

  public ReconcilesEndpoint(ControllerMetrics metrics, InstrumentedWorkQueue queue) {
    this.metrics = metrics;
    this.queue = queue;
  }

  @ReadOperation
  public Map<String, Object> reconciles() {
    Map<String, Object> result = new LinkedHashMap<>(metrics.reconcilesByResult());
    result.put("errors", metrics.errors());
    result.put("retries", metrics.retries());
    result.put("activeWorkers", metrics.activeWorkers());
    result.put("queueDepth", queue.length());
    return result;
  }
}
