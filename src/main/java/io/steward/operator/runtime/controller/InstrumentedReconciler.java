package io.steward.operator.runtime.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.micrometer.observation.Observation;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.support.LogSafe;
import io.steward.operator.runtime.support.WorkInFlight;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Times and counts every reconcile under controller-runtime's result labels, and turns an
 * exception into a rate-limited retry with one log line, so a worker never dies of one. A
 * {@link TerminalException} is counted as an error too but not retried: as controller-runtime does
 * with a terminal error, the request is forgotten until the object changes again. With tracing on,
 * each pass is an observation ({@link Tracing#RECONCILE}: the object's key and generation, the
 * result), in scope while it runs, so the API requests it sends become its children.
 */
public final class InstrumentedReconciler implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(InstrumentedReconciler.class);

  private final Reconciler delegate;
  private final String kind;
  private final ControllerMetrics metrics;
  private final WorkInFlight inFlight;
  private final Tracing tracing;
  private final BiFunction<String, String, ? extends KubernetesObject> cached;

  /** @param kind the kind the controller reconciles, for its log lines */
  public InstrumentedReconciler(Reconciler delegate, String kind, ControllerMetrics metrics,
      WorkInFlight inFlight) {
    this(delegate, kind, metrics, inFlight, Tracing.off(), (namespace, name) -> null);
  }

  /** @param cached the reconciled kind's cached object by namespace and name, for the generation a pass saw */
  public InstrumentedReconciler(Reconciler delegate, String kind, ControllerMetrics metrics,
      WorkInFlight inFlight, Tracing tracing, BiFunction<String, String, ? extends KubernetesObject> cached) {
    this.delegate = delegate;
    this.kind = kind;
    this.metrics = metrics;
    this.inFlight = inFlight;
    this.tracing = tracing;
    this.cached = cached;
  }

  @Override
  public Result reconcile(Request request) {
    Observation observation = Observation.createNotStarted(Tracing.RECONCILE, tracing.registry());
    if (observation.isNoop()) {
      return reconcile(request, observation);
    }
    String key = request.getNamespace() == null ? request.getName() : request.getNamespace() + "/" + request.getName();
    observation.contextualName("reconcile " + kind)
        .lowCardinalityKeyValue("kind", kind)
        .highCardinalityKeyValue("key", key);
    KubernetesObject object = cached.apply(request.getNamespace(), request.getName());
    if (object != null && object.getMetadata().getGeneration() != null) {
      observation.highCardinalityKeyValue("generation", String.valueOf(object.getMetadata().getGeneration()));
    }
    return observation.observe(() -> reconcile(request, observation));
  }

  private Result reconcile(Request request, Observation observation) {
    long start = System.nanoTime();
    inFlight.started();
    metrics.reconcileStarted();
    String outcome = ControllerMetrics.ERROR;
    try {
      Result result = delegate.reconcile(request);
      outcome = !result.isRequeue() ? ControllerMetrics.SUCCESS
          : result.getRequeueAfter() == null ? ControllerMetrics.REQUEUE : ControllerMetrics.REQUEUE_AFTER;
      return result;
    } catch (TerminalException e) {
      observation.error(e);
      // The reconciler reported it in the object's status and an Event once; no line per pass here.
      log.debug("Reconcile of {}/{} failed terminally, not retried until it changes: {}", request.getNamespace(),
          request.getName(), e.getMessage());
      return new Result(false);
    } catch (RuntimeException e) {
      if (WriteFence.FencedWriteException.isCauseOf(e)) {
        // The term is over and the process on its way out; the write was not sent.
        log.debug("Reconcile of {}/{} abandoned: {}", request.getNamespace(), request.getName(), e.toString());
        return new Result(false);
      }
      observation.error(e);
      log.warn("Reconcile of {} {}/{} failed, will retry with back-off: {}", kind, request.getNamespace(),
          request.getName(), LogSafe.describe(e));
      log.debug("Reconcile failure details", LogSafe.redacted(e));
      return new Result(true);
    } finally {
      observation.lowCardinalityKeyValue("result", outcome);
      metrics.reconcileFinished(outcome, System.nanoTime() - start);
      inFlight.finished();
    }
  }
}
