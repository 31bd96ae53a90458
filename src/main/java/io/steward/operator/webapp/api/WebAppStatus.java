package io.steward.operator.webapp.api;

import io.kubernetes.client.openapi.models.V1Condition;
import java.util.List;

/**
 * What Steward observed. It holds no timestamp of the last pass, so a pass that finds nothing new
 * computes an equal status and writes nothing.
 */
public record WebAppStatus(Phase phase, Long observedGeneration, Integer replicas, Integer readyReplicas,
    Integer availableReplicas, String selector, String url, List<V1Condition> conditions) {

  public static final WebAppStatus EMPTY = new WebAppStatus(null, null, null, null, null, null, null, null);

  public List<V1Condition> conditionsOrEmpty() {
    return conditions == null ? List.of() : conditions;
  }

  public enum Phase { Pending, Progressing, Ready, Degraded, Paused }
}
