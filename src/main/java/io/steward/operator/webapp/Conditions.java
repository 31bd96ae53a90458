package io.steward.operator.webapp;

import io.kubernetes.client.openapi.models.V1Condition;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/** metav1.Condition bookkeeping, as apimachinery's meta.SetStatusCondition does it. */
public final class Conditions {
  private Conditions() {}

  /**
   * Returns {@code existing} with {@code wanted} set: the transition time moves only when the
   * status flips, so re-setting an unchanged condition leaves the list equal to what it was.
   */
  public static List<V1Condition> set(List<V1Condition> existing, V1Condition wanted, OffsetDateTime now) {
    List<V1Condition> result = new ArrayList<>(existing.size() + 1);
    boolean found = false;
    for (V1Condition condition : existing) {
      if (condition.getType().equals(wanted.getType())) {
        found = true;
        boolean flipped = !condition.getStatus().equals(wanted.getStatus());
        result.add(copy(wanted).lastTransitionTime(
            flipped || condition.getLastTransitionTime() == null ? now : condition.getLastTransitionTime()));
      } else {
        result.add(condition);
      }
    }
    if (!found) {
      result.add(copy(wanted).lastTransitionTime(now));
    }
    return result;
  }

  public static V1Condition find(List<V1Condition> conditions, String type) {
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  public static boolean isTrue(List<V1Condition> conditions, String type) {
    V1Condition condition = find(conditions, type);
    return condition != null && "True".equals(condition.getStatus());
  }

  public static V1Condition condition(String type, boolean status, String reason, String message, long generation) {
    return new V1Condition().type(type).status(status ? "True" : "False").reason(reason).message(message)
        .observedGeneration(generation);
  }

  private static V1Condition copy(V1Condition c) {
    return new V1Condition().type(c.getType()).status(c.getStatus()).reason(c.getReason())
        .message(c.getMessage()).observedGeneration(c.getObservedGeneration());
  }
}
