package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.Controller;

/**
 * A controller as {@link ControllerManager} built it: client-java's controller, its work queue and
 * metrics, the reconciles it has in flight, and the informer of the kind it reconciles.
 */
public record ManagedController<P extends KubernetesObject>(String name, Controller controller,
    InstrumentedWorkQueue queue, ControllerMetrics metrics, ReconcilesInFlight inFlight, KindInformer<P> reconciled) {

  /**
   * The safety net: queues every cached object of the reconciled kind once, which is a no-op for
   * converged ones. At low priority, so that a change made meanwhile does not wait behind them.
   */
  public void resync() {
    reconciled.list().forEach(object -> queue.addLowPriority(ControllerManager.requestFor(object)));
  }
}
