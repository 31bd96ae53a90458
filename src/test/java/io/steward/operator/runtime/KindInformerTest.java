package io.steward.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KindInformerTest {
  private final List<String> seen = new ArrayList<>();

  /**
   * client-java runs one thread per handler per informer: with every handler added to every
   * informer, a sharded replica ran a thread per handler, kind and owned bucket.
   */
  @Test
  void eachInformerGetsOneHandlerHoweverManyAreAdded() {
    RecordingInformer namespace = new RecordingInformer();
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        namespace.informer()), 32);
    services.addEventHandler(recording("a"));
    services.addEventHandler(recording("b"));
    RecordingInformer bucket = new RecordingInformer();
    services.bucketViews().serve(Set.of(7), Map.of(Informers.ALL_NAMESPACES, bucket.informer()));
    services.addEventHandler(recording("c"));

    assertThat(namespace.handlers).hasSize(1);
    assertThat(bucket.handlers).hasSize(1);
    bucket.handlers.get(0).onAdd(labelled(service("shop"), 7));
    namespace.handlers.get(0).onDelete(service("cart"), false);
    assertThat(seen).containsExactly("a add shop", "b add shop", "c add shop", "a delete cart", "b delete cart",
        "c delete cart");
    assertThat(services.size()).isZero(); // its own count, first in line: one add, one delete
  }

  @Test
  void aHandlerThatThrowsDoesNotKeepTheEventFromTheHandlersAfterIt() {
    RecordingInformer namespace = new RecordingInformer();
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        namespace.informer()));
    services.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(V1Service object) {
        throw new IllegalStateException("broken handler");
      }

      @Override
      public void onUpdate(V1Service before, V1Service after) {}

      @Override
      public void onDelete(V1Service object, boolean finalStateUnknown) {}
    });
    services.addEventHandler(recording("after"));

    assertThatThrownBy(() -> namespace.handlers.get(0).onAdd(service("shop"))).hasMessage("broken handler");
    assertThat(seen).containsExactly("after add shop");
  }

  /**
   * Sharded mode: an object labelled with one bucket while its name belongs to another (copied with
   * its labels) is seen by no owner of its name; the view of the labelled bucket reports it.
   */
  @Test
  void aBucketInformerReportsWhatItHoldsOfAnotherBucket() {
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        new RecordingInformer().informer()), 32);
    List<String> misfiled = new ArrayList<>();
    services.onMisfiled((object, labelled, stillThere) -> misfiled.add(object.getMetadata().getName() + " in "
        + labelled));
    int copyBelongs = BucketHash.bucketOf("team", "copy", 32);
    int labelled = (copyBelongs + 1) % 32;
    RecordingInformer bucket = new RecordingInformer();
    services.bucketViews().serve(Set.of(labelled), Map.of(Informers.ALL_NAMESPACES, bucket.informer()));
    String own = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "own-" + i)
        .filter(n -> BucketHash.bucketOf("team", n, 32) == labelled).findFirst().orElseThrow();

    bucket.handlers.get(0).onAdd(labelled(service("copy"), labelled));
    bucket.handlers.get(0).onUpdate(labelled(service(own), labelled), labelled(service(own), labelled));

    assertThat(misfiled).containsExactly("copy in " + labelled);
  }

  @Test
  void aHandlerAddedOnceTheInformersRunIsRefused() {
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        new RecordingInformer().informer()));
    services.starting();

    assertThatThrownBy(() -> services.addEventHandler(recording("late")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("services");
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

  /** An informer that only records the handlers client-java would run a thread for. */
  private static final class RecordingInformer {
    final List<ResourceEventHandler<V1Service>> handlers = new ArrayList<>();
    final io.kubernetes.client.informer.cache.Cache<V1Service> cache = new io.kubernetes.client.informer.cache.Cache<>();

    @SuppressWarnings("unchecked")
    SharedIndexInformer<V1Service> informer() {
      return (SharedIndexInformer<V1Service>) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {SharedIndexInformer.class}, (proxy, method, args) -> switch (method.getName()) {
            case "addEventHandler" -> {
              handlers.add((ResourceEventHandler<V1Service>) args[0]);
              yield null;
            }
            case "getIndexer" -> cache;
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            case "toString" -> "RecordingInformer";
            default -> throw new UnsupportedOperationException(method.getName());
          });
    }
  }
}
