package io.steward.operator.runtime.controller;

/**
 * A reconcile failed in a way only a change of the object can cure (controller-runtime's
 * {@code reconcile.TerminalError}): the reconciler has already recorded it in the object's status,
 * so the runtime counts it as an error but does not retry it with back-off. The next change of the
 * object (a new generation) queues it again as usual.
 */
public final class TerminalException extends RuntimeException {
  public TerminalException(String message) {
    super(message, null, false, false);
  }
}
