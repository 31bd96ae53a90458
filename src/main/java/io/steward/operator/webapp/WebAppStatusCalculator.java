package io.steward.operator.webapp;

import static io.steward.operator.webapp.Conditions.condition;

import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1Service;
import io.steward.operator.webapp.WebAppConditions.Reasons;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;

/**
 * Computes a WebApp's status from what was observed: its Deployment's rollout, its Service, and any
 * problem met on this pass. A pure function of its inputs (and of "now" for transitions), so the
 * same observation gives an equal status and no write.
 */
public final class WebAppStatusCalculator {

  /** What one pass observed and did; {@code deployment} and {@code service} are Steward's own or null. */
  public record Observation(WebApp webApp, V1Deployment deployment, V1Service service, Problem problem) {}

  public WebAppStatus compute(Observation observed, OffsetDateTime now) {
    WebApp webApp = observed.webApp();
    long generation = Objects.requireNonNullElse(webApp.getMetadata().getGeneration(), 0L);
    boolean paused = webApp.getSpec().isPaused();
    V1Deployment deployment = observed.deployment();
    V1DeploymentStatus rollout = deployment == null || deployment.getStatus() == null
        ? new V1DeploymentStatus() : deployment.getStatus();
    int desired = deployment == null ? webApp.getSpec().replicasOrDefault()
        : Objects.requireNonNullElse(deployment.getSpec().getReplicas(), 1);
    int available = orZero(rollout.getAvailableReplicas());
    boolean rolledOut = deployment != null && isRolledOut(deployment, desired);
    V1DeploymentCondition deadline = deadlineExceeded(rollout);

    List<V1Condition> conditions = webApp.getStatus().conditionsOrEmpty();
    Problem problem = observed.problem();
    if (problem == null && deadline != null) {
      problem = new Problem(Reasons.PROGRESS_DEADLINE_EXCEEDED, "Deployment " + deployment.getMetadata().getName()
          + " is not progressing: " + deadline.getMessage());
    }
    conditions = Conditions.set(conditions, problem == null
        ? condition(WebAppConditions.DEGRADED, false, Reasons.AS_EXPECTED, "", generation)
        : condition(WebAppConditions.DEGRADED, true, problem.reason(), problem.message(), generation), now);

    String replicasMessage = available + " of " + desired + " replicas available";
    conditions = Conditions.set(conditions, rolledOut
        ? condition(WebAppConditions.READY, true, Reasons.AVAILABLE, replicasMessage, generation)
        : condition(WebAppConditions.READY, false, deployment == null ? Reasons.CREATING : Reasons.NOT_AVAILABLE,
            deployment == null ? "the Deployment does not exist yet" : replicasMessage, generation), now);

    V1Condition progressing;
    if (paused) {
      progressing = condition(WebAppConditions.PROGRESSING, false, Reasons.PAUSED,
          "spec.paused is true: Steward does not change the Deployment or Service", generation);
    } else if (rolledOut) {
      progressing = condition(WebAppConditions.PROGRESSING, false, Reasons.ROLLOUT_COMPLETE, replicasMessage, generation);
    } else if (deployment == null) {
      progressing = condition(WebAppConditions.PROGRESSING, problem == null, Reasons.CREATING,
          problem == null ? "creating the Deployment" : "blocked: " + problem.reason(), generation);
    } else {
      progressing = condition(WebAppConditions.PROGRESSING, deadline == null, Reasons.ROLLING_OUT,
          orZero(rollout.getUpdatedReplicas()) + " of " + desired + " replicas updated, " + replicasMessage, generation);
    }
    conditions = Conditions.set(conditions, progressing, now);

    Phase phase;
    if (paused) {
      phase = Phase.Paused;
    } else if (problem != null) {
      phase = Phase.Degraded;
    } else if (rolledOut) {
      phase = Phase.Ready;
    } else {
      phase = deployment == null ? Phase.Pending : Phase.Progressing;
    }
    return new WebAppStatus(phase, generation, orZero(rollout.getReplicas()), orZero(rollout.getReadyReplicas()),
        available, WebAppLabels.selectorString(webApp),
        observed.service() == null ? null : ServiceResource.url(observed.service()), conditions);
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
