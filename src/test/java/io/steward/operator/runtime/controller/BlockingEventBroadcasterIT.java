package io.steward.operator.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.extended.event.EventType;
import io.kubernetes.client.extended.event.legacy.EventRecorder;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Events recorded through Steward's broadcaster as the API server stores them: repeats counted on one
 * Event, an Event gone since recreated, Events queued before a stop recorded; and a recording thread
 * that waits without a timeout while nothing is queued (client-java's polls every 100 ms).
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class BlockingEventBroadcasterIT {
  private BlockingEventBroadcaster broadcaster;

  @AfterEach
  void stop() {
    if (broadcaster != null) {
      broadcaster.shutdown();
    }
  }

  @Test
  void repeatsAreCountedOnOneEventAndTheIdleRecorderWaitsWithoutATimeout(LocalCluster cluster,
      TestNamespace namespace) throws Exception {
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    V1ConfigMap subject = subject(core, namespace.name(), "counted");
    EventRecorder recorder = start(core);

    recorder.event(subject, EventType.Normal, "Tested", "the same %s", "message");
    recorder.event(subject, EventType.Normal, "Tested", "the same %s", "message");

    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(eventsOn(core, subject))
        .as("Events on the ConfigMap (reason, count)").extracting(e -> e.getReason() + " " + e.getCount())
        .containsExactly("Tested 2"));
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(broadcaster.worker().getState())
        .as("the recording thread with nothing queued").isEqualTo(Thread.State.WAITING));
  }

  @Test
  void anEventDeletedSinceIsRecordedAnew(LocalCluster cluster, TestNamespace namespace) throws Exception {
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    V1ConfigMap subject = subject(core, namespace.name(), "recreated");
    EventRecorder recorder = start(core);
    recorder.event(subject, EventType.Warning, "Tested", "once");
    CoreV1Event first = await().atMost(Duration.ofSeconds(20)).until(() -> eventsOn(core, subject), l -> l.size() == 1)
        .get(0);
    core.deleteNamespacedEvent(first.getMetadata().getName(), namespace.name()).execute();

    recorder.event(subject, EventType.Warning, "Tested", "once");

    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(eventsOn(core, subject))
        .as("Events on the ConfigMap after the first was deleted and the same happened again")
        .extracting(e -> e.getReason() + " " + e.getMessage()).containsExactly("Tested once"));
  }

  @Test
  void eventsQueuedBeforeAStopAreRecorded(LocalCluster cluster, TestNamespace namespace) throws Exception {
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    V1ConfigMap subject = subject(core, namespace.name(), "stopped");
    EventRecorder recorder = start(core);

    for (int i = 0; i < 3; i++) {
      recorder.event(subject, EventType.Normal, "Tested" + i, "before the stop");
    }
    broadcaster.shutdown();

    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(eventsOn(core, subject))
        .extracting(CoreV1Event::getReason).containsExactlyInAnyOrder("Tested0", "Tested1", "Tested2"));
    broadcaster.worker().join(Duration.ofSeconds(5).toMillis());
    assertThat(broadcaster.worker().isAlive()).as("the recording thread after the stop").isFalse();
  }

  private EventRecorder start(CoreV1Api core) {
    broadcaster = new BlockingEventBroadcaster(core, Duration.ofMillis(200));
    broadcaster.startRecording();
    return broadcaster.newRecorder(new V1EventSource().component("steward-test"));
  }

  private static V1ConfigMap subject(CoreV1Api core, String ns, String name) throws Exception {
    return core.createNamespacedConfigMap(ns, new V1ConfigMap().metadata(new V1ObjectMeta().name(name))).execute()
        .apiVersion("v1").kind("ConfigMap");
  }

  private static List<CoreV1Event> eventsOn(CoreV1Api core, V1ConfigMap subject) throws Exception {
    return core.listNamespacedEvent(subject.getMetadata().getNamespace())
        .fieldSelector("involvedObject.name=" + subject.getMetadata().getName()).execute().getItems();
  }
}
