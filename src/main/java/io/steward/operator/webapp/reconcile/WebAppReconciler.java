package io.steward.operator.webapp.reconcile;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.steward.operator.runtime.cache.InformerCache;
import io.steward.operator.runtime.controller.TerminalException;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.support.LogSafe;
import io.steward.operator.webapp.Conditions;
import io.steward.operator.webapp.Problem;
import io.steward.operator.webapp.WebAppConditions;
import io.steward.operator.webapp.WebAppStatusCalculator.Observation;
import io.steward.operator.webapp.WebAppStatusCalculator;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus;
import java.io.IOException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Reconcile loop for one WebApp: read the current state from the informer caches, bring the
 * owned Deployment and Service to the desired state, then close the loop with one status write when
 * the status changed. Idempotent: a pass over a converged WebApp sends no request at all.
 *
 * <p>Nothing fails silently: whatever goes wrong while building or applying the desired state becomes
 * a {@link Problem} in the status (Degraded, and Stalled unless a retry may cure it) with one Warning
 * Event. Returns {@code Result(true)} (a rate-limited retry) after a lost optimistic-concurrency race,
 * after a transient API failure and while a problem outside the spec persists; throws
 * {@link TerminalException} for a problem only a new spec can cure, which the runtime does not retry.
 * Such a problem, once in the status for the current generation, is not attempted again: the WebApp
 * costs no further write until its spec changes.
 */
public final class WebAppReconciler implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(WebAppReconciler.class);
  private static final Result DONE = new Result(false);
  private static final Result RETRY = new Result(true);

  private final InformerCache<WebApp> webApps;
  private final OwnedObjectSync<V1Deployment, V1DeploymentList> deployments;
  private final OwnedObjectSync<V1Service, V1ServiceList> services;
  private final WebAppStatusCalculator statusCalculator = new WebAppStatusCalculator();
  private final WebAppStatusWriter statusWriter;
  private final WebAppEvents events;
  private final Clock clock;
  private final WebAppBucketLabel bucketLabel;

  public WebAppReconciler(InformerCache<WebApp> webApps, OwnedObjectSync<V1Deployment, V1DeploymentList> deployments,
      OwnedObjectSync<V1Service, V1ServiceList> services, WebAppStatusWriter statusWriter, WebAppEvents events,
      Clock clock) {
    this(webApps, deployments, services, statusWriter, events, clock, null);
  }

  WebAppReconciler(InformerCache<WebApp> webApps, OwnedObjectSync<V1Deployment, V1DeploymentList> deployments,
      OwnedObjectSync<V1Service, V1ServiceList> services, WebAppStatusWriter statusWriter, WebAppEvents events,
      Clock clock, WebAppBucketLabel bucketLabel) {
    this.bucketLabel = bucketLabel;
    this.webApps = webApps;
    this.deployments = deployments;
    this.services = services;
    this.statusWriter = statusWriter;
    this.events = events;
    this.clock = clock;
  }

  @Override
  public Result reconcile(Request request) {
    WebApp webApp = webApps.get(request.getNamespace(), request.getName());
    if (webApp == null || webApp.getMetadata().getDeletionTimestamp() != null) {
      return DONE; // owned objects go with it, by garbage collection
    }
    try {
      if (bucketLabel != null) {
        webApp = bucketLabel.ensure(webApp);
      }
      Problem refusedSpec = refusedSpecOfThisGeneration(webApp);
      Observation observation = webApp.getSpec().isPaused() ? observe(webApp, null)
          : refusedSpec != null ? observe(webApp, refusedSpec) : converge(webApp);
      WebAppStatus status = statusCalculator.compute(observation,
          OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS));
      boolean statusWritten = writeStatus(webApp, status);
      Problem problem = observation.problem();
      if (problem != null) {
        reportProblemOnce(webApp, problem);
        if (problem.terminal()) {
          throw new TerminalException(problem.message());
        }
        return RETRY;
      }
      if (statusWritten && log.isDebugEnabled()) {
        log.debug("{}: status {} (generation {})", request, status.phase(), status.observedGeneration());
      }
      return DONE;
    } catch (StaleCacheException e) {
      log.debug("{}: {}; retrying on fresh data", request, LogSafe.redact(e.getMessage()));
      return RETRY;
    }
  }

  /** Paused, or refused for this spec: write nothing owned, but keep reporting what is there. */
  private Observation observe(WebApp webApp, Problem problem) {
    return new Observation(webApp, deployments.observe(webApp), services.observe(webApp), problem);
  }

  /**
   * The problem the status already reports as curable only by a new spec, when it was found for the
   * WebApp's current generation; null otherwise. Trying again would cost a request and find the same.
   */
  private static Problem refusedSpecOfThisGeneration(WebApp webApp) {
    WebAppStatus status = webApp.getStatus();
    Long generation = webApp.getMetadata().getGeneration();
    V1Condition stalled = Conditions.find(status.conditionsOrEmpty(), WebAppConditions.STALLED);
    if (generation == null || !generation.equals(status.observedGeneration()) || stalled == null
        || !"True".equals(stalled.getStatus()) || !generation.equals(stalled.getObservedGeneration())
        || !WebAppConditions.Reasons.INVALID_SPEC.equals(stalled.getReason())) {
      return null;
    }
    return new Problem(stalled.getReason(), stalled.getMessage(), Problem.Cure.SPEC_CHANGE);
  }

  private Observation converge(WebApp webApp) {
    OwnedObjectSync.Outcome<V1Deployment> deployment = sync(deployments, webApp);
    // A Deployment the server refused or that is not ours blocks the Service too: report one cause.
    OwnedObjectSync.Outcome<V1Service> service = deployment.problem() == null
        ? sync(services, webApp)
        : new OwnedObjectSync.Outcome<>(OwnedObjectSync.Action.NONE, services.observe(webApp), null);
    List<WebAppEvents.Change> changes = new ArrayList<>(2);
    if (deployment.action() != OwnedObjectSync.Action.NONE) {
      changes.add(new WebAppEvents.Change(deployment.action(), deployments.resource().kind()));
    }
    if (service.action() != OwnedObjectSync.Action.NONE) {
      changes.add(new WebAppEvents.Change(service.action(), services.resource().kind()));
    }
    if (!changes.isEmpty()) {
      log.info("WebApp {}/{}: {}", webApp.getMetadata().getNamespace(), webApp.getMetadata().getName(),
          changes.stream().map(c -> c.action().name().toLowerCase() + " " + c.kind()).toList());
      events.changed(webApp, changes);
    }
    Problem problem = deployment.problem() != null ? deployment.problem() : service.problem();
    return new Observation(webApp, deployment.object(), service.object(), problem);
  }

  /**
   * One owned object's sync, with every failure but a lost race turned into a problem for the status:
   * a transient API failure is retried, anything else (a value the client library cannot write, say)
   * only a new spec can cure.
   */
  private static <T extends KubernetesObject, L extends KubernetesListObject> OwnedObjectSync.Outcome<T> sync(
      OwnedObjectSync<T, L> sync, WebApp webApp) {
    try {
      return sync.sync(webApp);
    } catch (StaleCacheException e) {
      throw e;
    } catch (RuntimeException e) {
      if (WriteFence.FencedWriteException.isCauseOf(e)) {
        throw e; // not a problem of this WebApp: this replica's term is over and the pass is abandoned
      }
      return problemOf(sync, webApp, e);
    }
  }

  private static <T extends KubernetesObject, L extends KubernetesListObject> OwnedObjectSync.Outcome<T> problemOf(
      OwnedObjectSync<T, L> sync, WebApp webApp, RuntimeException failure) {
    Problem problem;
    IOException io = ioCause(failure);
    if (failure instanceof ApiFailureException) {
      problem = Problem.apiFailure(failure.getMessage());
    } else if (io != null) {
      problem = Problem.apiFailure("writing " + sync.resource().kind() + " " + webApp.getMetadata().getName()
          + " failed: " + io);
    } else {
      log.debug("Building or writing {} {}/{} failed", sync.resource().kind(), webApp.getMetadata().getNamespace(),
          webApp.getMetadata().getName(), LogSafe.redacted(failure));
      problem = Problem.unbuildable(sync.resource().kind(), failure);
    }
    return new OwnedObjectSync.Outcome<>(OwnedObjectSync.Action.NONE, sync.observe(webApp), problem);
  }

  /**
   * The status write, with a connection lost mid-response (which the client library reports as a
   * JSON parse error of the body it could not read) reported as the transient failure it is.
   */
  private boolean writeStatus(WebApp webApp, WebAppStatus status) {
    try {
      return statusWriter.writeIfChanged(webApp, status);
    } catch (StaleCacheException | ApiFailureException e) {
      throw e;
    } catch (RuntimeException e) {
      IOException io = ioCause(e);
      if (io == null) {
        throw e;
      }
      throw new ApiFailureException("patch status of WebApp " + webApp.getMetadata().getName(), io);
    }
  }

  private static IOException ioCause(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof IOException io) {
        return io;
      }
    }
    return null;
  }

  /** One Warning event and one log line per distinct problem, not one per retry. */
  private void reportProblemOnce(WebApp webApp, Problem problem) {
    V1Condition previous = Conditions.find(webApp.getStatus().conditionsOrEmpty(), WebAppConditions.DEGRADED);
    boolean alreadyReported = previous != null && "True".equals(previous.getStatus())
        && Objects.equals(previous.getReason(), problem.reason()) && Objects.equals(previous.getMessage(), problem.message());
    if (!alreadyReported) {
      // The message may quote the spec (it is the API server's); the status and Event carry it in full.
      log.info("WebApp {}/{}: {}: {}", webApp.getMetadata().getNamespace(), webApp.getMetadata().getName(),
          problem.reason(), LogSafe.redact(problem.message()));
      events.problem(webApp, problem);
    }
  }
}
