package io.steward.operator.webapp.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.event.EventType;
import io.kubernetes.client.extended.event.legacy.EventRecorder;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.operator.webapp.api.WebAppStatus;
import io.steward.operator.webapp.reconcile.OwnedObjectSync.Action;
import io.steward.operator.webapp.reconcile.WebAppEvents.Change;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One Event per pass that changed something, worded for `kubectl describe`. */
class WebAppEventsTest {
  private final List<String> recorded = new ArrayList<>();
  private final WebAppEvents events = new WebAppEvents(new EventRecorder() {
    @Override
    public void event(KubernetesObject object, EventType t, String reason, String format, String... args) {
      recorded.add(t + " " + reason + ": " + String.format(format, (Object[]) args));
    }

    @Override
    public void event(KubernetesObject object, Map<String, String> annotations, EventType t, String reason,
        String format, String... args) {
      event(object, t, reason, format, args);
    }

    @Override
    public void event(V1ObjectReference ref, EventType t, String reason, String format, String... args) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void event(V1ObjectReference ref, Map<String, String> annotations, EventType t, String reason,
        String format, String... args) {
      throw new UnsupportedOperationException();
    }
  });
  private final WebApp shop = new WebApp().metadata(new V1ObjectMeta().namespace("ns").name("shop"))
      .status(new WebAppStatus(Phase.Ready, 1L, 1, 1, 1, null, null, List.of()));

  @Test
  void aNewWebAppsFirstObjectsAreCreatedSilently() {
    WebApp fresh = new WebApp().metadata(new V1ObjectMeta().namespace("ns").name("fresh"));
    events.changed(fresh, List.of(new Change(Action.CREATED, "Deployment"), new Change(Action.CREATED, "Service")));
    assertThat(recorded).isEmpty();
  }

  @Test
  void objectsReCreatedLaterGetOneEvent() {
    events.changed(shop, List.of(new Change(Action.CREATED, "Deployment"), new Change(Action.CREATED, "Service")));
    assertThat(recorded).containsExactly("Normal Created: Created Deployment shop and Service shop");
  }

  @Test
  void mixedChangesShareOneEvent() {
    events.changed(shop, List.of(new Change(Action.UPDATED, "Deployment"), new Change(Action.DELETED, "Service")));
    assertThat(recorded).containsExactly("Normal Reconciled: Updated Deployment shop to match the spec; "
        + "deleted Service shop: the spec no longer asks for it");
  }

  @Test
  void aPassThatChangedNothingRecordsNothing() {
    events.changed(shop, List.of());
    assertThat(recorded).isEmpty();
  }
}
