package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.steward.operator.runtime.cache.EventLines;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.cache.KindInformer;
import io.steward.operator.runtime.cache.RecordingInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A kind's informers with its bucket views as their extension, as a sharded replica runs them. */
class BucketKindInformerTest {
  private static final int BUCKETS = 32;
  private final List<String> seen = new ArrayList<>();
  private final List<String> misfiled = new ArrayList<>();

  /**
   * client-java runs one thread per handler per informer: with every handler added to every
   * informer, a sharded replica ran a thread per handler, kind and owned bucket.
   */
  @Test
  void eachInformerGetsOneHandlerHoweverManyAreAdded() {
    RecordingInformer<V1Service> namespace = new RecordingInformer<>();
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        namespace.informer()));
    BucketViews<V1Service> views = viewsOf(services);
    services.addEventHandler(recording("a"));
    services.addEventHandler(recording("b"));
    RecordingInformer<V1Service> bucket = new RecordingInformer<>();
    views.serve(Set.of(7), Map.of(Informers.ALL_NAMESPACES, bucket.informer()));
    services.addEventHandler(recording("c"));

    assertThat(namespace.handlers).hasSize(1);
    assertThat(bucket.handlers).hasSize(1);
    bucket.handlers.get(0).onAdd(labelled(service("shop"), 7));
    namespace.handlers.get(0).onDelete(service("cart"), false);
    assertThat(seen).containsExactly("a add shop", "b add shop", "c add shop", "a delete cart", "b delete cart",
        "c delete cart");
    assertThat(services.size()).isZero(); // its own count, first in line: one add, one delete
  }

  /**
   * An object labelled with one bucket while its name belongs to another (copied with its labels) is
   * seen by no owner of its name; the view of the labelled bucket reports it.
   */
  @Test
  void aBucketInformerReportsWhatItHoldsOfAnotherBucket() {
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        new RecordingInformer<V1Service>().informer()));
    BucketViews<V1Service> views = viewsOf(services);
    int copyBelongs = BucketHash.bucketOf("team", "copy", BUCKETS);
    int labelled = (copyBelongs + 1) % BUCKETS;
    RecordingInformer<V1Service> bucket = new RecordingInformer<>();
    views.serve(Set.of(labelled), Map.of(Informers.ALL_NAMESPACES, bucket.informer()));
    String own = IntStream.range(0, 1000).mapToObj(i -> "own-" + i)
        .filter(n -> BucketHash.bucketOf("team", n, BUCKETS) == labelled).findFirst().orElseThrow();

    bucket.handlers.get(0).onAdd(labelled(service("copy"), labelled));
    bucket.handlers.get(0).onUpdate(labelled(service(own), labelled), labelled(service(own), labelled));

    assertThat(misfiled).containsExactly("copy in " + labelled);
  }

  private BucketViews<V1Service> viewsOf(KindInformer<V1Service> services) {
    BucketViews<V1Service> views = new BucketViews<>(BUCKETS, services.handlers(),
        (object, labelled, stillThere) -> misfiled.add(object.getMetadata().getName() + " in " + labelled),
        b -> null);
    services.extend(views);
    return views;
  }

  private ResourceEventHandler<V1Service> recording(String name) {
    return new EventLines<>(service -> service.getMetadata().getName(), "", line -> seen.add(name + " " + line));
  }

  private static V1Service labelled(V1Service service, int bucket) {
    service.getMetadata().labels(Map.of(BucketHash.LABEL, String.valueOf(bucket)));
    return service;
  }

  private static V1Service service(String name) {
    return new V1Service().metadata(new V1ObjectMeta().namespace("team").name(name));
  }
}
