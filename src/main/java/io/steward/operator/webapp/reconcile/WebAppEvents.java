package io.steward.operator.webapp.reconcile;

import io.kubernetes.client.extended.event.EventType;
import io.kubernetes.client.extended.event.legacy.EventRecorder;
import io.steward.operator.webapp.Problem;
import io.steward.operator.webapp.api.WebApp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kubernetes Events Steward records on a WebApp, so `kubectl describe webapp` tells its story: at
 * most one per pass that changed owned objects, and one per distinct problem.
 *
 * <p>A new WebApp's first objects are created silently: its status already says it is being created
 * and rolled out, and an Event is a write like any other, a fourth for every new WebApp on top of the
 * three that make it. What Steward changes later, re-creating an object someone deleted included, is news.
 */
public final class WebAppEvents {
  /** One owned object a pass created, updated or deleted. */
  public record Change(OwnedObjectSync.Action action, String kind) {}

  private final EventRecorder recorder;

  public WebAppEvents(EventRecorder recorder) {
    this.recorder = recorder;
  }

  /** One Normal event for what a pass changed, e.g. "Updated Deployment shop to match the spec". */
  public void changed(WebApp webApp, List<Change> changes) {
    boolean firstPass = webApp.getStatus().observedGeneration() == null;
    if (firstPass) {
      changes = changes.stream().filter(c -> c.action() != OwnedObjectSync.Action.CREATED).toList();
    }
    if (changes.isEmpty()) {
      return;
    }
    String name = webApp.getMetadata().getName();
    Map<OwnedObjectSync.Action, List<String>> byAction = new LinkedHashMap<>();
    changes.forEach(c -> byAction.computeIfAbsent(c.action(), a -> new ArrayList<>()).add(c.kind() + " " + name));
    List<String> clauses = new ArrayList<>();
    byAction.forEach((action, objects) -> clauses.add(switch (action) {
      case CREATED -> "created " + String.join(" and ", objects);
      case UPDATED -> "updated " + String.join(" and ", objects) + " to match the spec";
      case DELETED -> "deleted " + String.join(" and ", objects) + ": the spec no longer asks for it";
      case NONE -> throw new IllegalArgumentException("not a change: " + action);
    }));
    String message = String.join("; ", clauses);
    String reason = byAction.size() == 1 ? capitalized(byAction.keySet().iterator().next().name().toLowerCase())
        : "Reconciled";
    recorder.event(webApp, EventType.Normal, reason, "%s", capitalized(message));
  }

  public void problem(WebApp webApp, Problem problem) {
    recorder.event(webApp, EventType.Warning, problem.reason(), "%s", problem.message());
  }

  private static String capitalized(String text) {
    return Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }
}
