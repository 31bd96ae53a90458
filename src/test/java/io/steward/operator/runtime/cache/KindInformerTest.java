package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KindInformerTest {
  private final List<String> seen = new ArrayList<>();

  /** client-java runs one thread per handler per informer: every informer gets one handler, however many are added. */
  @Test
  void eachInformerGetsOneHandlerHoweverManyAreAdded() {
    RecordingInformer<V1Service> namespace = new RecordingInformer<>();
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        namespace.informer()));
    services.addEventHandler(recording("a"));
    services.addEventHandler(recording("b"));

    assertThat(namespace.handlers).hasSize(1);
    namespace.handlers.get(0).onAdd(service("shop"));
    services.handlers().onDelete(service("cart"), false);
    assertThat(seen).containsExactly("a add shop", "b add shop", "a delete cart", "b delete cart");
    assertThat(services.size()).isZero(); // its own count, first in line: one add, one delete
  }

  @Test
  void aHandlerThatThrowsDoesNotKeepTheEventFromTheHandlersAfterIt() {
    RecordingInformer<V1Service> namespace = new RecordingInformer<>();
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

  /** What an extension holds is read as the kind's own, and its watch start is the objects' own. */
  @Test
  void anExtensionIsReadAsPartOfTheKind() {
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        new RecordingInformer<V1Service>().informer()));
    V1Service extra = service("extra");
    OffsetDateTime listedAt = OffsetDateTime.of(2026, 12, 7, 12, 0, 0, 0, ZoneOffset.UTC);
    KindInformer.Extension<V1Service> extension = new KindInformer.Extension<>() {
      @Override
      public V1Service get(String scope, String namespace, String name) {
        return name.equals("extra") ? extra : null;
      }

      @Override
      public void addAllTo(List<V1Service> all) {
        all.add(extra);
      }

      @Override
      public OffsetDateTime watchingSince(V1Service object) {
        return object == extra ? listedAt : null;
      }
    };
    services.extend(extension);
    OffsetDateTime otherwise = listedAt.minusHours(1);

    assertThat(services.get("team", "extra")).isSameAs(extra);
    assertThat(services.get("team", "other")).isNull();
    assertThat(services.list()).containsExactly(extra);
    assertThat(services.watchingSince(extra, otherwise)).isEqualTo(listedAt);
    assertThat(services.watchingSince(service("other"), otherwise)).isEqualTo(otherwise);
    assertThatThrownBy(() -> services.extend(extension)).as("a second extension")
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("services");
  }

  @Test
  void aHandlerAddedOnceTheInformersRunIsRefused() {
    KindInformer<V1Service> services = new KindInformer<>("services", Map.of(Informers.ALL_NAMESPACES,
        new RecordingInformer<V1Service>().informer()));
    services.starting();

    assertThatThrownBy(() -> services.addEventHandler(recording("late")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("services");
  }

  private ResourceEventHandler<V1Service> recording(String name) {
    return new EventLines<>(service -> service.getMetadata().getName(), "", line -> seen.add(name + " " + line));
  }

  private static V1Service service(String name) {
    return new V1Service().metadata(new V1ObjectMeta().namespace("team").name(name));
  }
}
