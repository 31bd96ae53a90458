package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The read-your-writes rules, against an informer store this test moves by hand: the store, then
 * the event, in the order a real informer applies and then delivers them.
 */
class ReadYourWritesCacheTest {
  private final Map<String, V1ConfigMap> store = new HashMap<>();
  private final ReadYourWritesCache<V1ConfigMap> cache = new ReadYourWritesCache<>((ns, name) -> store.get(name));
  private final List<String> delivered = new ArrayList<>();
  private final ResourceEventHandler<V1ConfigMap> handler =
      cache.skippingEchoes(new EventLines<>(ReadYourWritesCacheTest::version, "", delivered::add));

  /**
   * The watch was cut while Steward created the object and someone deleted it: the re-list shows
   * neither, so no event will ever drop the record. Past its time it is dropped, reads see the
   * informer again, and the owner is told.
   */
  @Test
  void aCreateTheInformerNeverShowsIsDroppedInTimeAndReported() {
    long[] now = {0};
    ReadYourWritesCache<V1ConfigMap> timed = new ReadYourWritesCache<>((ns, name) -> store.get(name),
        java.time.Duration.ofSeconds(30), () -> now[0]);
    List<String> reported = new ArrayList<>();
    timed.onUnconfirmed(object -> reported.add(object.getMetadata().getName()));
    timed.written(null, object("7"));

    now[0] = java.time.Duration.ofSeconds(29).toNanos();
    assertThat(timed.dropUnconfirmed()).isZero();
    assertThat(version(timed.get("ns", "a"))).as("still the fresher view").isEqualTo("7");

    now[0] = java.time.Duration.ofSeconds(31).toNanos();
    assertThat(timed.get("ns", "a")).as("the informer's view: nothing").isNull();
    timed.written(null, object("8"));
    now[0] = java.time.Duration.ofSeconds(62).toNanos();
    assertThat(timed.dropUnconfirmed()).isEqualTo(1);
    assertThat(reported).containsExactly("a");
    assertThat(timed.pending()).isZero();
  }

  @Test
  void aCreatedObjectIsReadBeforeTheInformerHasItAndItsEchoIsDropped() {
    cache.written(null, object("7"));
    assertThat(version(cache.get("ns", "a"))).isEqualTo("7");

    store.put("a", object("7"));
    handler.onAdd(object("7"));
    assertThat(delivered).isEmpty();
    assertThat(cache.pending()).isZero();
    assertThat(version(cache.get("ns", "a"))).isEqualTo("7");
  }

  @Test
  void anAddEventThatBeatsTheCreatesResponseIsItsEchoToo() {
    String result = cache.writing("ns", "a", () -> {
      // The watch delivers the new object while the response is still on its way.
      store.put("a", object("7"));
      handler.onAdd(object("7"));
      cache.written(null, object("7"));
      return "created";
    });
    assertThat(result).isEqualTo("created");
    assertThat(delivered).isEmpty();
    assertThat(cache.pending()).isZero();

    // Once the create has returned, an add (someone re-created it after a delete) is news again.
    handler.onAdd(object("9"));
    assertThat(delivered).containsExactly("add 9");
  }

  @Test
  void anUpdateEventThatBeatsTheResponseIsItsEcho() {
    store.put("a", object("1"));
    cache.writing("ns", "a", () -> {
      store.put("a", object("2"));
      handler.onUpdate(object("1"), object("2"));
      cache.written(object("1"), object("2"));
      return null;
    });
    assertThat(delivered).isEmpty();
    assertThat(cache.pending()).isZero();
  }

  @Test
  void someoneElsesChangeThatCameDuringOurWriteIsDeliveredAfterIt() {
    store.put("a", object("1"));
    cache.writing("ns", "a", () -> {
      store.put("a", object("3"));
      handler.onUpdate(object("1"), object("2"));
      handler.onUpdate(object("2"), object("3")); // someone else, right after us
      assertThat(delivered).as("nothing judged while the write is on its way").isEmpty();
      cache.written(object("1"), object("2"));
      return null;
    });
    assertThat(delivered).containsExactly("update 3");
    assertThat(cache.pending()).isZero();
  }

  @Test
  void eventsThatCameDuringAFailedWriteAreDelivered() {
    store.put("a", object("1"));
    assertThatThrownBy(() -> cache.writing("ns", "a", () -> {
      store.put("a", object("5"));
      handler.onUpdate(object("1"), object("5")); // the change that made our conditional write fail
      throw new IllegalStateException("409");
    })).hasMessage("409");
    assertThat(delivered).containsExactly("update 5");
  }

  @Test
  void aHandlerFailingOnAHeldEventDoesNotKeepTheNextFromBeingJudged() {
    List<String> seen = new ArrayList<>();
    ResourceEventHandler<V1ConfigMap> failingFirst = cache.skippingEchoes(new ResourceEventHandler<>() {
      @Override
      public void onAdd(V1ConfigMap object) {
        throw new IllegalStateException("handler bug");
      }

      @Override
      public void onUpdate(V1ConfigMap before, V1ConfigMap after) {
        seen.add("update " + version(after));
      }

      @Override
      public void onDelete(V1ConfigMap object, boolean finalStateUnknown) {}
    });
    cache.writing("ns", "a", () -> {
      failingFirst.onAdd(object("8"));
      failingFirst.onUpdate(object("8"), object("9"));
      return null;
    });
    assertThat(seen).containsExactly("update 9");
  }

  @Test
  void anUpdateIsReadUntilTheInformerMovesPastIt() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2"));
    assertThat(version(cache.get("ns", "a"))).isEqualTo("2");

    // Someone else wrote right after us, and the informer applied both before delivering either.
    store.put("a", object("3"));
    assertThat(version(cache.get("ns", "a"))).isEqualTo("3");
    handler.onUpdate(object("1"), object("2"));
    handler.onUpdate(object("2"), object("3"));
    assertThat(delivered).containsExactly("update 3");
    assertThat(cache.pending()).isZero();
  }

  @Test
  void aChainOfWritesIsReadUntilTheInformerHasTheLast() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2"));
    cache.written(cache.get("ns", "a"), object("3")); // the next pass builds on its own write
    assertThat(version(cache.get("ns", "a"))).isEqualTo("3");

    store.put("a", object("2"));
    handler.onUpdate(object("1"), object("2"));
    assertThat(version(cache.get("ns", "a"))).as("the informer has only the first write").isEqualTo("3");
    store.put("a", object("3"));
    handler.onUpdate(object("2"), object("3"));
    assertThat(delivered).as("both echoes dropped").isEmpty();
    assertThat(cache.pending()).isZero();
  }

  @Test
  void aWriteTheInformerAppliedBeforeItWasRecordedIsNotKept() {
    store.put("a", object("2"));
    cache.written(object("1"), object("2"));
    assertThat(cache.pending()).isZero();
    assertThat(version(cache.get("ns", "a"))).isEqualTo("2");
  }

  @Test
  void anotherWritersEventIsDeliveredAndEndsTheWrite() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2"));
    store.put("a", object("5"));
    handler.onUpdate(object("1"), object("5"));
    assertThat(delivered).containsExactly("update 5");
    assertThat(cache.pending()).isZero();
  }

  @Test
  void aReplayOfTheReplacedVersionKeepsTheWrite() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2"));
    handler.onUpdate(object("1"), object("1")); // a re-list replaying the store
    assertThat(delivered).containsExactly("update 1");
    assertThat(version(cache.get("ns", "a"))).isEqualTo("2");
  }

  @Test
  void aDeleteIsReadAsAbsentAndItsEchoIsDropped() {
    store.put("a", object("4"));
    cache.written(object("4"), null);
    assertThat(cache.get("ns", "a")).isNull();

    store.remove("a");
    handler.onDelete(object("4"), false);
    assertThat(delivered).isEmpty();
    assertThat(cache.pending()).isZero();
  }

  @Test
  void anObjectCreatedAndDeletedBeforeTheInformerSawEitherIsReadAsAbsent() {
    cache.written(null, object("7"));
    cache.written(cache.get("ns", "a"), null);
    assertThat(cache.get("ns", "a")).isNull();

    store.put("a", object("7"));
    handler.onAdd(object("7"));
    assertThat(cache.get("ns", "a")).as("the informer has only the create").isNull();
    store.remove("a");
    handler.onDelete(object("7"), false);
    assertThat(delivered).as("both echoes dropped").isEmpty();
    assertThat(cache.pending()).isZero();
  }

  @Test
  void anObjectDeletedByOthersAfterOurCreateIsDeliveredAndReadAsAbsent() {
    cache.written(null, object("7"));
    store.put("a", object("7"));
    store.remove("a");
    handler.onAdd(object("7"));
    handler.onDelete(object("7"), false);
    assertThat(delivered).containsExactly("delete 7");
    assertThat(cache.get("ns", "a")).isNull();
  }

  /** Sharded mode: labelling a new WebApp moves it from the informer of unlabelled objects to its bucket's. */
  @Test
  void anObjectLeavingASelectorThroughOurOwnWriteIsNotADelete() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2")); // the label patch
    cache.written(cache.get("ns", "a"), object("3")); // the status patch, in the same pass
    handler.onDelete(object("2"), false); // the unlabelled informer: gone from its selector at version 2
    assertThat(delivered).isEmpty();
    assertThat(cache.pending()).as("still to be confirmed by the informer that shows it now").isEqualTo(1);
    store.put("a", object("3"));
    handler.onAdd(object("3")); // the bucket's informer
    assertThat(delivered).isEmpty();
    assertThat(cache.pending()).isZero();
  }

  /**
   * Sharded mode: a pass woken while the object is between the two informers (the unlabelled one let
   * it go, its bucket's has not shown it yet) reads it as Steward's last write left it, not as absent,
   * which would end the pass and lose the change that woke it.
   */
  @Test
  void anObjectBetweenTwoInformersIsReadAsOurLastWriteLeftIt() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2")); // the label patch
    cache.written(cache.get("ns", "a"), object("3")); // the status patch, in the same pass
    store.remove("a");
    handler.onDelete(object("2"), false); // the unlabelled informer: gone from its selector at version 2
    assertThat(version(cache.get("ns", "a"))).isEqualTo("3");
  }

  /**
   * Sharded mode, as traced: the label patch's events come before its response has been recorded,
   * and no informer shows the object at that instant (the unlabelled one let it go, the bucket's
   * one has not added it yet). Both events are echoes, not a delete and an add.
   */
  @Test
  void aMoveBetweenInformersWhileTheLabelPatchIsOnItsWayIsNoNews() {
    store.put("a", object("1"));
    cache.writing("ns", "a", () -> {
      store.remove("a"); // the unlabelled informer: gone from its selector at version 2
      handler.onDelete(object("2"), false);
      cache.written(object("1"), object("2"));
      return null;
    });
    assertThat(delivered).isEmpty();
    cache.writing("ns", "a", () -> {
      store.put("a", object("2")); // the bucket's informer, while the status patch is on its way
      handler.onAdd(object("2"));
      cache.written(cache.get("ns", "a"), object("3"));
      return null;
    });
    store.put("a", object("3"));
    handler.onUpdate(object("2"), object("3"));
    assertThat(delivered).isEmpty();
    assertThat(cache.pending()).isZero();
  }

  @Test
  void anObjectTheNextInformerShowedBeforeTheFirstToldOfItsExitIsNotDeleted() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2")); // the label patch
    store.put("a", object("2"));
    handler.onAdd(object("2")); // the bucket's informer first: the echo, which ends the record
    handler.onDelete(object("2"), false); // then the unlabelled informer's exit; the bucket's still holds it
    assertThat(delivered).isEmpty();
  }

  @Test
  void aDeleteAtAVersionOfItsOwnOrFromARelistIsStillDelivered() {
    store.put("a", object("1"));
    cache.written(object("1"), object("2"));
    store.remove("a");
    handler.onDelete(object("2"), true); // a re-list found it gone: the last state known, not the deletion
    assertThat(delivered).containsExactly("delete 2");

    cache.written(object("1"), object("4"));
    handler.onDelete(object("5"), false); // deleted by someone else: the deletion's own version
    assertThat(delivered).containsExactly("delete 2", "delete 5");
  }

  private static V1ConfigMap object(String resourceVersion) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("ns").name("a").resourceVersion(resourceVersion));
  }

  private static String version(V1ConfigMap object) {
    return object == null ? null : object.getMetadata().getResourceVersion();
  }
}
