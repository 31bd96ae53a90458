package io.steward.operator.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which events are queued at low priority. With a low-priority depth of 1, only the first
 * low-priority item enters the queue at once, so the order workers get items in shows the priorities.
 */
class QueueingEventHandlerTest {
  private static final OffsetDateTime WATCHING_SINCE = OffsetDateTime.of(2026, 12, 3, 6, 0, 0, 0, ZoneOffset.UTC);

  private final InstrumentedWorkQueue queue = new InstrumentedWorkQueue(ClientGoRateLimiter.create(),
      new ControllerMetrics(new SimpleMeterRegistry(), "test", 1), 1);
  private final QueueingEventHandler<V1ConfigMap> handler = new QueueingEventHandler<>(queue,
      object -> object.getMetadata().getName().startsWith("foreign") ? null
          : new Request(object.getMetadata().getNamespace(), object.getMetadata().getName()),
      (before, after) -> !"ignored".equals(after.getMetadata().getLabels().get("update")), WATCHING_SINCE);

  @Test
  void theInitialListIsLowPriorityAndNewObjectsAreNot() throws InterruptedException {
    handler.onAdd(object("listed-1", WATCHING_SINCE.minusDays(3), "1"));
    handler.onAdd(object("listed-2", WATCHING_SINCE.minusSeconds(1), "2"));
    handler.onAdd(object("created", WATCHING_SINCE.plusSeconds(5), "3"));
    assertThat(drain(3)).containsExactly("listed-1", "created", "listed-2");
  }

  /**
   * Sharded mode: a bucket's informer starts when the bucket is taken, long after Steward began
   * watching. Its list is a replay too; queued as new, it held the bucket's waiting changes behind
   * the whole list (seen after take-overs: a changed WebApp's first pass seconds after its bucket's
   * caches had listed).
   */
  @Test
  void theListOfAnInformerStartedLaterIsLowPriorityToo() throws InterruptedException {
    OffsetDateTime bucketTaken = WATCHING_SINCE.plusHours(2);
    QueueingEventHandler<V1ConfigMap> byInformer = new QueueingEventHandler<>(queue,
        object -> new Request(object.getMetadata().getNamespace(), object.getMetadata().getName()),
        (before, after) -> true, object -> object.getMetadata().getName().startsWith("bucket") ? bucketTaken
            : WATCHING_SINCE);
    byInformer.onAdd(object("bucket-listed-1", WATCHING_SINCE.plusHours(1), "1"));
    byInformer.onAdd(object("bucket-listed-2", WATCHING_SINCE.plusHours(1), "2"));
    byInformer.onAdd(object("bucket-created", bucketTaken.plusSeconds(1), "3"));
    byInformer.onAdd(object("created", WATCHING_SINCE.plusHours(1), "4"));
    assertThat(drain(4)).containsExactly("bucket-listed-1", "bucket-created", "created", "bucket-listed-2");
  }

  @Test
  void aReplayedUpdateIsLowPriorityAndARealOneIsNot() throws InterruptedException {
    handler.onAdd(object("listed", WATCHING_SINCE.minusDays(1), "1"));
    handler.onUpdate(object("replayed", WATCHING_SINCE.minusDays(1), "7"),
        object("replayed", WATCHING_SINCE.minusDays(1), "7"));
    handler.onUpdate(object("changed", WATCHING_SINCE.minusDays(1), "7"),
        object("changed", WATCHING_SINCE.minusDays(1), "8"));
    assertThat(drain(3)).containsExactly("listed", "changed", "replayed");
  }

  @Test
  void updatesThatDoNotMatterAndForeignObjectsAreNotQueued() {
    V1ConfigMap before = object("status-only", WATCHING_SINCE.plusSeconds(1), "1");
    V1ConfigMap after = object("status-only", WATCHING_SINCE.plusSeconds(1), "2");
    after.getMetadata().putLabelsItem("update", "ignored");
    handler.onUpdate(before, after);
    handler.onAdd(object("foreign", WATCHING_SINCE.plusSeconds(1), "3"));
    handler.onDelete(object("foreign", WATCHING_SINCE.plusSeconds(1), "3"), false);
    assertThat(queue.length()).isZero();
  }

  @Test
  void deletesAreNormalPriority() throws InterruptedException {
    handler.onAdd(object("listed-1", WATCHING_SINCE.minusDays(1), "1"));
    handler.onAdd(object("listed-2", WATCHING_SINCE.minusDays(1), "2"));
    handler.onDelete(object("deleted", WATCHING_SINCE.minusDays(1), "3"), true);
    assertThat(drain(3)).containsExactly("listed-1", "deleted", "listed-2");
  }

  private static V1ConfigMap object(String name, OffsetDateTime created, String resourceVersion) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("ns").name(name).creationTimestamp(created)
        .resourceVersion(resourceVersion).putLabelsItem("update", "matters"));
  }

  private List<String> drain(int count) throws InterruptedException {
    return InstrumentedWorkQueueTest.drain(queue, count);
  }
}
