package io.steward.operator.webapp;

/**
 * Why a WebApp cannot reach its spec without help, as reported in its Degraded condition.
 *
 * @param reason one of {@link WebAppConditions.Reasons}
 * @param message what the user should read, naming the object and the cause
 */
public record Problem(String reason, String message) {

  public static Problem conflict(String kind, String name) {
    return new Problem(WebAppConditions.Reasons.RESOURCE_CONFLICT, kind + " " + name
        + " exists and is not owned by this WebApp; Steward leaves it untouched. Delete or rename it to let Steward manage it.");
  }

  public static Problem rejected(String kind, String serverMessage) {
    return new Problem(WebAppConditions.Reasons.INVALID_SPEC,
        "the API server refused the " + kind + " built from this spec: " + serverMessage);
  }
}
