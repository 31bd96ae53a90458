package io.steward.operator.webapp;

/**
 * Why a WebApp cannot reach its spec without help, as reported in its Degraded (and, unless a retry
 * may cure it, Stalled) condition.
 *
 * @param reason one of {@link WebAppConditions.Reasons}
 * @param message what the user should read, naming the object and the cause
 * @param cure what has to happen before Steward can make progress again
 */
public record Problem(String reason, String message, Cure cure) {
  /** Keeps a condition message (and an Event) readable however long the server's or library's text is. */
  static final int MAX_MESSAGE = 2048;

  /** What cures a problem, which decides whether Steward retries and whether the WebApp is Stalled. */
  public enum Cure {
    /** A transient failure (5xx, timeout, throttling): retried with back-off; not Stalled. */
    RETRY,
    /** Something outside the WebApp must change (a namesake removed, pods that get ready): Stalled, retried. */
    OUTSIDE_CHANGE,
    /** Only a new spec can cure it: Stalled, recorded once and not retried until the generation changes. */
    SPEC_CHANGE
  }

  public Problem {
    if (message != null && message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE - 1) + "…";
    }
  }

  public boolean stalled() {
    return cure != Cure.RETRY;
  }

  public boolean terminal() {
    return cure == Cure.SPEC_CHANGE;
  }

  public static Problem conflict(String kind, String name) {
    return new Problem(WebAppConditions.Reasons.RESOURCE_CONFLICT, kind + " " + name
        + " exists and is not owned by this WebApp; Steward leaves it untouched. Delete or rename it to let Steward manage it.",
        Cure.OUTSIDE_CHANGE);
  }

  public static Problem rejected(String kind, String serverMessage) {
    return new Problem(WebAppConditions.Reasons.INVALID_SPEC,
        "the API server refused the " + kind + " built from this spec: " + serverMessage, Cure.SPEC_CHANGE);
  }

  /** Building the desired objects failed: the spec holds a value Steward cannot carry out. */
  public static Problem unbuildable(String kind, RuntimeException cause) {
    return new Problem(WebAppConditions.Reasons.INVALID_SPEC,
        "Steward cannot build the " + kind + " from this spec: " + describe(cause), Cure.SPEC_CHANGE);
  }

  /** The API server failed in a way a later retry may cure. */
  public static Problem apiFailure(String failure) {
    return new Problem(WebAppConditions.Reasons.API_FAILURE, failure + "; retrying with back-off", Cure.RETRY);
  }

  public static Problem progressDeadlineExceeded(String deploymentName, String deploymentMessage) {
    return new Problem(WebAppConditions.Reasons.PROGRESS_DEADLINE_EXCEEDED,
        "Deployment " + deploymentName + " is not progressing: " + deploymentMessage, Cure.OUTSIDE_CHANGE);
  }

  private static String describe(RuntimeException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
