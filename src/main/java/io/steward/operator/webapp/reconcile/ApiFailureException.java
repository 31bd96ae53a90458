package io.steward.operator.webapp.reconcile;

/** The API server answered a request with an error that retrying later may cure (5xx, 429, 403, ...). */
public final class ApiFailureException extends RuntimeException {
  public ApiFailureException(String what, int code, String serverMessage) {
    super(what + " failed with HTTP " + code + ": " + serverMessage);
  }

  /** A request that got no answer at all (code 0): {@code cause} says why. */
  public ApiFailureException(String what, Throwable cause) {
    super(what + " failed: " + cause.getMessage(), cause);
  }
}
