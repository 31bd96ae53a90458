package io.steward.operator.webapp;

import static io.steward.operator.webapp.Conditions.condition;

import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1Service;
import io.steward.operator.webapp.WebAppConditions.Reasons;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.operator.webapp.api.WebAppStatus;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;

/**
 * Computes a WebApp's status from what was observed: its Deployment's rollout, its Service, and any
 * problem met on this pass. A pure function of its inputs (and of "now" for transitions), so the
 * same observation gives an equal status and no write.
 *
 * <p>Every status it computes carries the WebApp's current generation as observedGeneration, and so
 * does each condition: kstatus judges a status whose observedGeneration is behind as InProgress.
 */
public final class WebAppStatusCalculator {

  /** What one pass observed and did; {@code deployment} and {@code service} are Steward's own or null. */
  public record Observation(WebApp webApp, V1Deployment deployment, V1Service service, Problem problem) {}

  /** The facts every condition is derived from, gathered once. */
  private record Facts(long generation, boolean paused, V1Deployment deployment, V1DeploymentStatus rollout,
      int desired, int available, boolean rolledOut, Problem problem) {

    boolean stalled() {
      return problem != null && problem.stalled();
    }

    String replicasMessage() {
      return available + " of " + desired + " replicas available";
    }
  }

  public WebAppStatus compute(Observation observed, OffsetDateTime now) {
    Facts facts = facts(observed);
    List<V1Condition> conditions = observed.webApp().getStatus().conditionsOrEmpty();
    for (V1Condition wanted : List.of(degraded(facts), ready(facts), progressing(facts), reconciling(facts),
        stalled(facts))) {
      conditions = Conditions.set(conditions, wanted, now);
    }
    WebApp webApp = observed.webApp();
    return new WebAppStatus(phase(facts), facts.generation(), orZero(facts.rollout().getReplicas()),
        orZero(facts.rollout().getReadyReplicas()), facts.available(), WebAppLabels.selectorString(webApp),
        observed.service() == null ? null : ServiceResource.url(observed.service()), conditions);
  }

  private static Facts facts(Observation observed) {
    WebApp webApp = observed.webApp();
    V1Deployment deployment = observed.deployment();
    V1DeploymentStatus rollout = deployment == null || deployment.getStatus() == null
        ? new V1DeploymentStatus() : deployment.getStatus();
    int desired = deployment == null ? webApp.getSpec().replicasOrDefault()
        : Objects.requireNonNullElse(deployment.getSpec().getReplicas(), 1);
    Problem problem = observed.problem();
    V1DeploymentCondition deadline = deadlineExceeded(rollout);
    if (problem == null && deadline != null) {
      problem = Problem.progressDeadlineExceeded(deployment.getMetadata().getName(), deadline.getMessage());
    }
    return new Facts(Objects.requireNonNullElse(webApp.getMetadata().getGeneration(), 0L),
        webApp.getSpec().isPaused(), deployment, rollout, desired, orZero(rollout.getAvailableReplicas()),
        deployment != null && isRolledOut(deployment, desired), problem);
  }

  private static V1Condition degraded(Facts f) {
    return f.problem() == null
        ? condition(WebAppConditions.DEGRADED, false, Reasons.AS_EXPECTED, "", f.generation())
        : condition(WebAppConditions.DEGRADED, true, f.problem().reason(), f.problem().message(), f.generation());
  }

  private static V1Condition ready(Facts f) {
    if (f.rolledOut()) {
      return condition(WebAppConditions.READY, true, Reasons.AVAILABLE, f.replicasMessage(), f.generation());
    }
    return f.deployment() == null
        ? condition(WebAppConditions.READY, false, Reasons.CREATING, "the Deployment does not exist yet", f.generation())
        : condition(WebAppConditions.READY, false, Reasons.NOT_AVAILABLE, f.replicasMessage(), f.generation());
  }

  private static V1Condition progressing(Facts f) {
    if (f.paused()) {
      return condition(WebAppConditions.PROGRESSING, false, Reasons.PAUSED,
          "spec.paused is true: Steward does not change the Deployment or Service", f.generation());
    }
    if (f.rolledOut()) {
      return condition(WebAppConditions.PROGRESSING, false, Reasons.ROLLOUT_COMPLETE, f.replicasMessage(), f.generation());
    }
    if (f.deployment() == null) {
      return condition(WebAppConditions.PROGRESSING, !f.stalled(), Reasons.CREATING,
          f.problem() == null ? "creating the Deployment" : "blocked: " + f.problem().reason(), f.generation());
    }
    return condition(WebAppConditions.PROGRESSING, !f.stalled(), Reasons.ROLLING_OUT,
        orZero(f.rollout().getUpdatedReplicas()) + " of " + f.desired() + " replicas updated, " + f.replicasMessage(),
        f.generation());
  }

  /** True while Steward is still working towards the spec and expects to get there without help. */
  private static V1Condition reconciling(Facts f) {
    if (f.paused()) {
      return condition(WebAppConditions.RECONCILING, false, Reasons.PAUSED, "spec.paused is true", f.generation());
    }
    if (f.stalled()) {
      return condition(WebAppConditions.RECONCILING, false, f.problem().reason(), "stalled: see the Stalled condition",
          f.generation());
    }
    if (f.problem() != null) {
      return condition(WebAppConditions.RECONCILING, true, Reasons.RETRYING, f.problem().message(), f.generation());
    }
    if (f.rolledOut()) {
      return condition(WebAppConditions.RECONCILING, false, Reasons.ROLLOUT_COMPLETE, f.replicasMessage(), f.generation());
    }
    return f.deployment() == null
        ? condition(WebAppConditions.RECONCILING, true, Reasons.CREATING, "creating the Deployment", f.generation())
        : condition(WebAppConditions.RECONCILING, true, Reasons.ROLLING_OUT, f.replicasMessage(), f.generation());
  }

  /** True when Steward cannot make progress until the spec or something outside the WebApp changes. */
  private static V1Condition stalled(Facts f) {
    return f.stalled()
        ? condition(WebAppConditions.STALLED, true, f.problem().reason(), f.problem().message(), f.generation())
        : condition(WebAppConditions.STALLED, false, Reasons.AS_EXPECTED, "", f.generation());
  }

  private static Phase phase(Facts f) {
    if (f.paused()) {
      return Phase.Paused;
    }
    if (f.problem() != null) {
      return Phase.Degraded;
    }
    if (f.rolledOut()) {
      return Phase.Ready;
    }
    return f.deployment() == null ? Phase.Pending : Phase.Progressing;
  }

  /** The rollout of the Deployment's current spec is complete, as `kubectl rollout status` judges it. */
  static boolean isRolledOut(V1Deployment deployment, int desired) {
    V1DeploymentStatus status = deployment.getStatus();
    if (status == null || status.getObservedGeneration() == null
        || status.getObservedGeneration() < Objects.requireNonNullElse(deployment.getMetadata().getGeneration(), 0L)) {
      return false;
    }
    return orZero(status.getUpdatedReplicas()) == desired && orZero(status.getReplicas()) == desired
        && orZero(status.getAvailableReplicas()) >= desired;
  }

  private static V1DeploymentCondition deadlineExceeded(V1DeploymentStatus status) {
    if (status.getConditions() == null) {
      return null;
    }
    return status.getConditions().stream()
        .filter(c -> "Progressing".equals(c.getType()) && "False".equals(c.getStatus())
            && "ProgressDeadlineExceeded".equals(c.getReason()))
        .findFirst().orElse(null);
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
