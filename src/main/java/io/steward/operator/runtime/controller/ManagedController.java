package io.steward.operator.runtime.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.steward.operator.runtime.cache.KindInformer;
import io.steward.operator.runtime.support.WorkInFlight;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A controller as {@link ControllerManager} built it: client-java's controller, its work queue and
 * metrics, the reconciles it has in flight, the informer of the kind it reconciles, and which of its
 * objects are settled (see {@link ControllerManager.Builder#settledWhen}).
 */
public record ManagedController<P extends KubernetesObject>(String name, Controller controller,
    InstrumentedWorkQueue queue, ControllerMetrics metrics, WorkInFlight inFlight, KindInformer<P> reconciled,
    Predicate<P> settled) {

  /**
   * The safety net: queues every cached object of the reconciled kind once, which is a no-op for
   * converged ones. At low priority, so that a change made meanwhile does not wait behind them.
   */
  public void resync() {
    reconciled.list().forEach(object -> queue.addLowPriority(ControllerManager.requestFor(object)));
  }

  /**
   * Queues every cached object in one of {@code groups} ({@code groupOf} tells an object's group, or
   * null): what a replica does with the objects of the buckets it has just taken, whose events it
   * dropped before. Those with work outstanding go first, at normal priority; settled ones wait in
   * the low-priority lane, since their previous owner most likely converged them. Within each
   * priority the groups take turns, one object each: the buckets taken together each get their
   * first pass early, not one bucket all of its passes before the next one gets any.
   *
   * @return how many were queued
   */
  public int requeue(Function<Request, Integer> groupOf, Set<Integer> groups) {
    Map<Integer, List<Request>> unsettled = new TreeMap<>();
    Map<Integer, List<Request>> settledOnes = new TreeMap<>();
    for (P object : reconciled.list()) {
      Request request = ControllerManager.requestFor(object);
      Integer group = groupOf.apply(request);
      if (group != null && groups.contains(group)) {
        (settled.test(object) ? settledOnes : unsettled).computeIfAbsent(group, g -> new ArrayList<>()).add(request);
      }
    }
    return takingTurns(unsettled, queue::add) + takingTurns(settledOnes, queue::addLowPriority);
  }

  private static int takingTurns(Map<Integer, List<Request>> byGroup, Consumer<Request> add) {
    int queued = 0;
    for (int turn = 0; ; turn++) {
      boolean any = false;
      for (List<Request> group : byGroup.values()) {
        if (turn < group.size()) {
          add.accept(group.get(turn));
          queued++;
          any = true;
        }
      }
      if (!any) {
        return queued;
      }
    }
  }
}
