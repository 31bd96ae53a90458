package io.steward.operator.webapp.reconcile;

import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.steward.operator.webapp.Conditions;
import io.steward.operator.webapp.Problem;
import io.steward.operator.webapp.WebAppConditions;
import io.steward.operator.webapp.WebAppStatusCalculator;
import io.steward.operator.webapp.WebAppStatusCalculator.Observation;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus;
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
 * <p>Returns {@code Result(true)} (a rate-limited retry) after a lost optimistic-concurrency race and
 * while a problem persists; throws {@link ApiFailureException} and other exceptions for failures, which
 * the runtime counts as errors and also retries with back-off.
 */
public final class WebAppReconciler implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(WebAppReconciler.class);
  private static final Result DONE = new Result(false);
  private static final Result RETRY = new Result(true);

  private final ObjectCache<WebApp> webApps;
  private final OwnedObjectSync<V1Deployment, V1DeploymentList> deployments;
  private final OwnedObjectSync<V1Service, V1ServiceList> services;
  private final WebAppStatusCalculator statusCalculator = new WebAppStatusCalculator();
  private final WebAppStatusWriter statusWriter;
  private final WebAppEvents events;
  private final Clock clock;

  public WebAppReconciler(ObjectCache<WebApp> webApps, OwnedObjectSync<V1Deployment, V1DeploymentList> deployments,
      OwnedObjectSync<V1Service, V1ServiceList> services, WebAppStatusWriter statusWriter, WebAppEvents events,
      Clock clock) {
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
      Observation observation = webApp.getSpec().isPaused() ? observe(webApp) : converge(webApp);
      WebAppStatus status = statusCalculator.compute(observation,
          OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS));
      boolean statusWritten = statusWriter.writeIfChanged(webApp, status);
      if (observation.problem() != null) {
        reportProblemOnce(webApp, observation.problem());
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

  /** Paused: write nothing owned, but keep reporting what is there. */
  private Observation observe(WebApp webApp) {
    return new Observation(webApp, deployments.observe(webApp), services.observe(webApp), null);
  }

  private Observation converge(WebApp webApp) {
    OwnedObjectSync.Outcome<V1Deployment> deployment = deployments.sync(webApp);
    // A Deployment the server refused or that is not ours blocks the Service too: report one cause.
    OwnedObjectSync.Outcome<V1Service> service = deployment.problem() == null
        ? services.sync(webApp)
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
