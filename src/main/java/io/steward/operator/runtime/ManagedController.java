package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.reconciler.Request;
import java.util.function.Predicate;

/**
 * A controller as {@link ControllerManager} built it: client-java's controller, its work queue and
 * metrics, the reconciles it has in flight, the informer of the kind it reconciles, and which of its
 * objects are settled (see {@link ControllerManager.Builder#settledWhen}).
 */
public record ManagedController<P extends KubernetesObject>(String name, Controller controller,
    InstrumentedWorkQueue queue, ControllerMetrics metrics, ReconcilesInFlight inFlight, KindInformer<P> reconciled,
    Predicate<P> settled) {

  /**
   * The safety net: queues every cached object of the reconciled kind once, which is a no-op for
   * converged ones. At low priority, so that a change made meanwhile does not wait behind them.
   */
  public void resync() {
    reconciled.list().forEach(object -> queue.addLowPriority(ControllerManager.requestFor(object)));
  }

  /**
   * Queues every cached object whose request passes {@code which}: what a replica does with the
   * objects of a bucket it has just taken, whose events it dropped before. Those with work outstanding
   * go first, at normal priority; settled ones wait in the low-priority lane, since their previous
   * owner most likely converged them.
   */
  public int requeue(Predicate<Request> which) {
    int queued = 0;
    for (P object : reconciled.list()) {
      Request request = ControllerManager.requestFor(object);
      if (which.test(request)) {
        if (settled.test(object)) {
          queue.addLowPriority(request);
        } else {
          queue.add(request);
        }
        queued++;
      }
    }
    return queued;
  }
}
