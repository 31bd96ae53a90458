package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.steward.operator.runtime.cache.EventLines;
import io.steward.operator.runtime.cache.Informers;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The buckets a sharded replica caches, listed and watched together by one informer per group, as
 * its handlers and readers see them: each bucket as if it had an informer of its own.
 */
class BucketViewsTest {
  private static final int BUCKETS = 32;
  private static final String ALL = Informers.ALL_NAMESPACES;

  private final List<String> told = new ArrayList<>();
  private final List<String> misfiled = new ArrayList<>();
  private final BucketViews<V1Service> views = new BucketViews<>(BUCKETS, recording(),
      (object, labelled, stillThere) -> misfiled.add(object.getMetadata().getName() + " in " + labelled),
      bucket -> null);

  @Test
  void eachBucketOfAGroupIsSeenAsIfItHadAnInformerOfItsOwn() {
    ScriptedInformer informer = new ScriptedInformer();
    views.serve(Set.of(1, 2), Map.of(ALL, informer.informer()));
    String one = nameIn(1, 0);
    String two = nameIn(2, 0);

    informer.add(service(one, 1, "10"));
    informer.add(service(two, 2, "11"));
    informer.add(service(nameIn(3, 0), 3, "12")); // a bucket the group does not serve
    informer.update(service(one, 1, "13"));
    informer.update(service(two, 1, "14")); // relabelled into the other bucket of the group
    informer.delete(service(one, 1, "13"));

    assertThat(told).containsExactly("add " + one + "@10", "add " + two + "@11", "update " + one + "@13",
        "delete " + two + "@11", "add " + two + "@14", "delete " + one + "@13");
    assertThat(misfiled).containsExactly(two + " in 1");
    assertThat(views.get(ALL, "team", two)).as("its name's bucket is 2, its label says 1").isNull();
    assertThat(views.get(ALL, "team", nameIn(3, 0))).as("bucket 3 is not served here").isNull();
  }

  @Test
  void aBucketLetGoIsReportedGoneAndItsLaterEventsAreDropped() {
    ScriptedInformer informer = new ScriptedInformer();
    BucketViews.Group<V1Service> group = views.serve(Set.of(1, 2), Map.of(ALL, informer.informer()));
    informer.add(service(nameIn(1, 0), 1, "10"));
    informer.add(service(nameIn(2, 0), 2, "11"));
    told.clear();

    assertThat(views.letGo(2)).isSameAs(group);
    informer.update(service(nameIn(2, 0), 2, "12"));
    informer.add(service(nameIn(2, 1), 2, "13"));

    assertThat(told).containsExactly("delete " + nameIn(2, 0) + "@11 (final state unknown)");
    assertThat(views.get(ALL, "team", nameIn(2, 0))).isNull();
    assertThat(views.get(ALL, "team", nameIn(1, 0))).isNotNull();
    List<V1Service> all = new ArrayList<>();
    views.addAllTo(all);
    assertThat(all).extracting(s -> s.getMetadata().getName()).containsExactly(nameIn(1, 0));
    assertThat(views.synced(1)).isTrue();
    assertThat(views.letGo(1)).isSameAs(group);
    assertThat(views.synced(1)).as("no group serves bucket 1").isFalse();
  }

  /**
   * A group still watching a bucket let go is replaced by one listing only the buckets it serves. The
   * handlers must hear only what changed meanwhile: reporting every object gone and back would count
   * them wrong for a moment and queue a pass for each; reporting the replacement's list as adds of
   * objects they know would count them twice.
   */
  @Test
  void aReplacementGroupTellsTheHandlersOnlyWhatDiffers() {
    ScriptedInformer old = new ScriptedInformer();
    views.serve(Set.of(1, 2), Map.of(ALL, old.informer()));
    String unchanged = nameIn(1, 0);
    String changed = nameIn(1, 1);
    String deleted = nameIn(1, 2);
    String pending = nameIn(1, 3);
    String created = nameIn(1, 4);
    old.add(service(unchanged, 1, "10"));
    old.add(service(changed, 1, "11"));
    old.add(service(deleted, 1, "12"));
    old.add(service(pending, 1, "13"));
    old.add(service(nameIn(2, 0), 2, "14"));
    views.letGo(2);
    told.clear();

    ScriptedInformer replacement = new ScriptedInformer();
    BucketViews.Group<V1Service> group = views.shadow(Map.of(ALL, replacement.informer()));
    replacement.add(service(unchanged, 1, "10"));
    replacement.add(service(changed, 1, "15"));
    replacement.add(service(created, 1, "16"));
    replacement.holdWithoutTelling(service(pending, 1, "13")); // listed; its add not handed out yet
    assertThat(told).as("nothing while it shadows").isEmpty();

    views.takeOver(group, Set.of(1));
    assertThat(told).containsExactlyInAnyOrder("update " + changed + "@15", "add " + created + "@16",
        "delete " + deleted + "@12 (final state unknown)");

    told.clear();
    replacement.tell(service(pending, 1, "13")); // its add comes now: known, same version
    old.update(service(unchanged, 1, "17")); // the old group's events no longer count
    replacement.update(service(unchanged, 1, "18"));
    assertThat(told).containsExactly("update " + unchanged + "@18");
    assertThat(views.get(ALL, "team", unchanged).getMetadata().getResourceVersion()).isEqualTo("18");
  }

  /** A name in {@code bucket}, the {@code n}th found. */
  private static String nameIn(int bucket, int n) {
    return IntStream.range(0, 100_000).mapToObj(i -> "web-" + i)
        .filter(name -> BucketHash.bucketOf("team", name, BUCKETS) == bucket).skip(n).findFirst().orElseThrow();
  }

  private static V1Service service(String name, int bucket, String version) {
    return new V1Service().metadata(new V1ObjectMeta().namespace("team").name(name).resourceVersion(version)
        .labels(Map.of(BucketHash.LABEL, String.valueOf(bucket))));
  }

  private ResourceEventHandler<V1Service> recording() {
    return new EventLines<>(BucketViewsTest::describe, " (final state unknown)", told::add);
  }

  private static String describe(V1Service object) {
    return object.getMetadata().getName() + "@" + object.getMetadata().getResourceVersion();
  }

  /** An informer whose cache and events the test writes, in the order client-java keeps: cache, then handler. */
  private static final class ScriptedInformer {
    private final Cache<V1Service> cache = new Cache<>();
    private ResourceEventHandler<V1Service> handler;

    void add(V1Service object) {
      cache.add(object);
      handler.onAdd(object);
    }

    void update(V1Service object) {
      V1Service before = cache.getByKey(object.getMetadata().getNamespace() + "/" + object.getMetadata().getName());
      cache.update(object);
      handler.onUpdate(before, object);
    }

    void delete(V1Service object) {
      cache.delete(object);
      handler.onDelete(object, false);
    }

    void holdWithoutTelling(V1Service object) {
      cache.add(object);
    }

    void tell(V1Service object) {
      handler.onAdd(object);
    }

    @SuppressWarnings("unchecked")
    SharedIndexInformer<V1Service> informer() {
      return (SharedIndexInformer<V1Service>) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {SharedIndexInformer.class}, (proxy, method, args) -> switch (method.getName()) {
            case "addEventHandler" -> {
              handler = (ResourceEventHandler<V1Service>) args[0];
              yield null;
            }
            case "getIndexer" -> cache;
            case "hasSynced" -> true;
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            case "toString" -> "ScriptedInformer";
            default -> throw new UnsupportedOperationException(method.getName());
          });
    }
  }
}
