package io.steward.operator.webapp;

/**
 * The condition types and reasons Steward writes to a WebApp's status (the kubebuilder convention
 * of one constants file, so users can match on them).
 *
 * <p>Reconciling and Stalled are the "abnormal-true" conditions of the Kubernetes API conventions
 * that kstatus (and so Flux, kpt and Argo CD's health checks) reads: True means "not done yet" and
 * "cannot get done without a change" respectively.
 */
public final class WebAppConditions {
  private WebAppConditions() {}

  /** All replicas of the current spec are available. */
  public static final String READY = "Ready";
  /** A rollout of the current spec is under way. */
  public static final String PROGRESSING = "Progressing";
  /** Steward cannot bring the WebApp to its spec without help: see the reason. */
  public static final String DEGRADED = "Degraded";
  /** Work towards the current spec is under way (kstatus reads True as InProgress). */
  public static final String RECONCILING = "Reconciling";
  /** Steward cannot make progress until something changes (kstatus reads True as Failed). */
  public static final String STALLED = "Stalled";

  public static final class Reasons {
    private Reasons() {}

    public static final String AVAILABLE = "Available";
    public static final String NOT_AVAILABLE = "ReplicasNotAvailable";
    public static final String CREATING = "Creating";
    public static final String ROLLING_OUT = "RollingOut";
    public static final String ROLLOUT_COMPLETE = "RolloutComplete";
    public static final String AS_EXPECTED = "AsExpected";
    public static final String PAUSED = "Paused";
    /** The Deployment's progress deadline passed (for example pods that never get ready). */
    public static final String PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";
    /** A Deployment or Service of the same name exists and is not Steward's: left untouched. */
    public static final String RESOURCE_CONFLICT = "ResourceConflict";
    /**
     * The spec holds something Steward cannot carry out: the API server refused what Steward built
     * from it, or Steward could not build it at all. Only a new spec cures it.
     */
    public static final String INVALID_SPEC = "InvalidSpec";
    /** The API server failed a request in a way a retry may cure (5xx, timeout, throttling). */
    public static final String API_FAILURE = "ApiFailure";
    /** Steward is retrying after a transient failure. */
    public static final String RETRYING = "Retrying";
  }
}
