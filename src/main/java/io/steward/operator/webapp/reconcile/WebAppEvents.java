package io.steward.operator.webapp.reconcile;

import io.kubernetes.client.extended.event.EventType;
import io.kubernetes.client.extended.event.legacy.EventRecorder;
import io.steward.operator.webapp.Problem;
import io.steward.operator.webapp.api.WebApp;

/** The Kubernetes Events Steward records on a WebApp, so `kubectl describe webapp` tells its story. */
public final class WebAppEvents {
  private final EventRecorder recorder;

  public WebAppEvents(EventRecorder recorder) {
    this.recorder = recorder;
  }

  public void changed(WebApp webApp, OwnedObjectSync.Action action, String kind) {
    switch (action) {
      case CREATED -> normal(webApp, "Created", "Created " + kind + " " + webApp.getMetadata().getName());
      case UPDATED -> normal(webApp, "Updated", "Updated " + kind + " " + webApp.getMetadata().getName()
          + " to match the spec");
      case DELETED -> normal(webApp, "Deleted", "Deleted " + kind + " " + webApp.getMetadata().getName()
          + ": the spec no longer asks for it");
      case NONE -> { }
    }
  }

  public void problem(WebApp webApp, Problem problem) {
    recorder.event(webApp, EventType.Warning, problem.reason(), "%s", problem.message());
  }

  public void failed(WebApp webApp, String message) {
    recorder.event(webApp, EventType.Warning, "ReconcileFailed", "%s", message);
  }

  private void normal(WebApp webApp, String reason, String message) {
    recorder.event(webApp, EventType.Normal, reason, "%s", message);
  }
}
