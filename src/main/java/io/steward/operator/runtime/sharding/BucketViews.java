package io.steward.operator.runtime.sharding;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Caches;
import io.steward.operator.runtime.cache.KindInformer;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * Sharded mode: the objects of one kind in the buckets this replica caches, as its handlers and
 * readers see them. The buckets taken together are listed and watched together, by one informer per
 * namespace scope selecting {@code steward.io/bucket in (…)} (a {@link Group}), so a replica runs a
 * few informers whatever it owns, rather than one per kind and bucket with its threads and its watch
 * on the API server. Each bucket's objects are still handed out as if that bucket had an informer of
 * its own: an object is seen while its label names a bucket its group serves, and when a bucket is
 * let go its objects are reported gone, although its group may keep watching it.
 *
 * <p>A group that keeps watching buckets it no longer serves is replaced ({@link #shadow},
 * {@link #takeOver}): the new group lists only the buckets still served and records what it is told
 * without telling anyone; once it has listed it serves them, and the handlers hear only what differs
 * from what they were told before. So the replacement costs a list, not a pass over every object.
 */
final class BucketViews<T extends KubernetesObject> implements KindInformer.Extension<T> {
  /** Buckets listed and watched together: one informer per namespace scope. */
  static final class Group<T extends KubernetesObject> {
    private final Map<String, SharedIndexInformer<T>> byScope;
    /** While it shadows: what its informers have told, by key; null once it serves. */
    private Map<String, T> shadow;

    private Group(Map<String, SharedIndexInformer<T>> byScope, boolean shadowing) {
      this.byScope = Map.copyOf(byScope);
      this.shadow = shadowing ? new HashMap<>() : null;
    }

    boolean synced() {
      return byScope.values().stream().allMatch(SharedIndexInformer::hasSynced);
    }

    void stop() {
      byScope.values().forEach(SharedIndexInformer::stop);
    }
  }

  /**
   * Told of each object a bucket's view shows (added or updated) whose name belongs to another
   * bucket, which its label does not say: no replica would reconcile it as it is.
   */
  @FunctionalInterface
  interface Misfiled<T> {
    /**
     * @param labelled the bucket its label names, whose view shows it
     * @param stillThere whether that view still shows it
     */
    void misfiled(T object, int labelled, BooleanSupplier stillThere);
  }

  private final int buckets;
  private final ResourceEventHandler<T> handlers;
  private final Misfiled<T> misfiled;
  private final IntFunction<OffsetDateTime> watchingSince;
  /** Which group serves each bucket cached here. */
  private final Map<Integer, Group<T>> served = new ConcurrentHashMap<>();
  /** Per bucket, what the handlers were last told of each of its objects, by key. Guarded by this. */
  private final Map<Integer, Map<String, T>> told = new HashMap<>();

  /**
   * @param handlers every event a bucket's view sees goes there
   * @param misfiled told of each object a bucket's view shows whose name belongs to another bucket
   * @param watchingSince when a bucket began to be watched here; null if it is not
   */
  BucketViews(int buckets, ResourceEventHandler<T> handlers, Misfiled<T> misfiled,
      IntFunction<OffsetDateTime> watchingSince) {
    this.buckets = buckets;
    this.handlers = handlers;
    this.misfiled = misfiled;
    this.watchingSince = watchingSince;
  }

  @Override
  public OffsetDateTime watchingSince(T object) {
    int bucket = BucketHash.labelled(object);
    return bucket < 0 ? null : watchingSince.apply(bucket);
  }

  /** A group serving {@code selected} from its start; none of them may be served already. */
  synchronized Group<T> serve(Set<Integer> selected, Map<String, SharedIndexInformer<T>> byScope) {
    for (int bucket : selected) {
      if (served.containsKey(bucket)) {
        throw new IllegalStateException("bucket " + bucket + " is served already");
      }
    }
    Group<T> group = listen(new Group<>(byScope, false));
    selected.forEach(bucket -> served.put(bucket, group));
    return group;
  }

  /**
   * A group that will replace those serving some of the buckets it lists ({@link #takeOver}); until
   * then it only records what its informers tell.
   */
  synchronized Group<T> shadow(Map<String, SharedIndexInformer<T>> byScope) {
    return listen(new Group<>(byScope, true));
  }

  private Group<T> listen(Group<T> group) {
    group.byScope.forEach((scope, informer) -> informer.addEventHandler(new GroupHandler(group, scope)));
    return group;
  }

  /**
   * {@code group}, a shadow, serves {@code moving} from now on, in place of the groups serving them.
   * The handlers are told what differs between what they were told and what the group was told: an
   * update for an object at another version, an add for one they have not seen, a delete for one the
   * group has neither told of nor holds. An object the group holds and has not told of yet keeps its
   * view: the group's own event for it follows and is compared as any other.
   */
  synchronized void takeOver(Group<T> group, Set<Integer> moving) {
    Map<String, T> shadow = Objects.requireNonNull(group.shadow, "the group serves already");
    for (int bucket : moving) {
      served.put(bucket, group);
      Map<String, T> view = told.getOrDefault(bucket, Map.of());
      for (Map.Entry<String, T> seen : List.copyOf(view.entrySet())) {
        String key = seen.getKey();
        T now = shadow.get(key);
        if (now != null && BucketHash.labelled(now) == bucket) {
          tell(bucket, seen.getValue(), now);
        } else if (now == null && holds(group, seen.getValue(), bucket)) {
          continue;
        } else {
          view.remove(key);
          handlers.onDelete(seen.getValue(), now == null);
        }
      }
    }
    for (T now : shadow.values()) {
      int bucket = BucketHash.labelled(now);
      if (moving.contains(bucket) && !told.getOrDefault(bucket, Map.of()).containsKey(key(now))) {
        tell(bucket, null, now);
      }
    }
    group.shadow = null;
  }

  /**
   * {@code bucket} is cached here no longer: the handlers are told each of its objects is gone.
   *
   * @return the group that served it, null if none did
   */
  synchronized Group<T> letGo(int bucket) {
    Group<T> group = served.remove(bucket);
    Map<String, T> view = told.remove(bucket);
    if (view != null) {
      view.values().forEach(object -> handlers.onDelete(object, true));
    }
    return group;
  }

  /** Whether the group serving {@code bucket} has listed (false if none does). */
  boolean synced(int bucket) {
    Group<T> group = served.get(bucket);
    return group != null && group.synced();
  }

  /** The cached object named so, if its name's bucket is served here and its label names that bucket. */
  @Override
  public T get(String scope, String namespace, String name) {
    int bucket = BucketHash.bucketOf(namespace, name, buckets);
    Group<T> group = served.get(bucket);
    SharedIndexInformer<T> informer = group == null ? null : group.byScope.get(scope);
    T object = informer == null ? null : informer.getIndexer().getByKey(namespace + "/" + name);
    return object != null && BucketHash.labelled(object) == bucket ? object : null;
  }

  /** Every cached object of the buckets served here. */
  @Override
  public void addAllTo(List<T> all) {
    Set<Group<T>> groups = Collections.newSetFromMap(new IdentityHashMap<>());
    groups.addAll(served.values());
    for (Group<T> group : groups) {
      for (SharedIndexInformer<T> informer : group.byScope.values()) {
        for (T object : informer.getIndexer().list()) {
          if (served.get(BucketHash.labelled(object)) == group) {
            all.add(object);
          }
        }
      }
    }
  }

  /**
   * One event of one of {@code group}'s informers, {@code now} null for a delete: what the views of
   * the buckets the group serves make of it.
   */
  private synchronized void onEvent(Group<T> group, String scope, T now, T deleted, boolean finalStateUnknown) {
    T object = now != null ? now : deleted;
    String key = key(object);
    if (group.shadow != null) {
      if (now != null) {
        group.shadow.put(key, now);
      } else {
        group.shadow.remove(key);
      }
      return;
    }
    Integer before = null;
    for (Map.Entry<Integer, Map<String, T>> view : told.entrySet()) {
      if (served.get(view.getKey()) == group && view.getValue().containsKey(key)) {
        before = view.getKey();
        break;
      }
    }
    Integer after = now != null && served.get(BucketHash.labelled(now)) == group ? BucketHash.labelled(now) : null;
    if (before != null && !before.equals(after)) {
      T seen = told.get(before).remove(key);
      handlers.onDelete(now == null ? deleted : seen, now == null && finalStateUnknown);
    }
    if (after != null) {
      T seen = told.getOrDefault(after, Map.of()).get(key);
      tell(after, seen, now);
      if (BucketHash.bucketOf(now.getMetadata().getNamespace(), now.getMetadata().getName(), buckets) != after) {
        int labelled = after;
        misfiled.misfiled(now, labelled, () -> served.get(labelled) == group
            && holds(group.byScope.get(scope), now, labelled));
      }
    }
  }

  /** Tells the handlers of {@code now} in {@code bucket}'s view: an add, an update, or nothing if unchanged. */
  private void tell(int bucket, T seen, T now) {
    told.computeIfAbsent(bucket, b -> new HashMap<>()).put(key(now), now);
    if (seen == null) {
      handlers.onAdd(now);
    } else if (!Objects.equals(seen.getMetadata().getResourceVersion(), now.getMetadata().getResourceVersion())) {
      handlers.onUpdate(seen, now);
    }
  }

  private boolean holds(Group<T> group, T object, int bucket) {
    return group.byScope.values().stream().anyMatch(informer -> holds(informer, object, bucket));
  }

  private static <T extends KubernetesObject> boolean holds(SharedIndexInformer<T> informer, T object, int bucket) {
    T held = informer == null ? null : informer.getIndexer().getByKey(key(object));
    return held != null && BucketHash.labelled(held) == bucket;
  }

  private static String key(KubernetesObject object) {
    return Caches.metaNamespaceKeyFunc(object);
  }

  private final class GroupHandler implements ResourceEventHandler<T> {
    private final Group<T> group;
    private final String scope;

    GroupHandler(Group<T> group, String scope) {
      this.group = group;
      this.scope = scope;
    }

    @Override
    public void onAdd(T object) {
      onEvent(group, scope, object, null, false);
    }

    @Override
    public void onUpdate(T before, T after) {
      onEvent(group, scope, after, null, false);
    }

    @Override
    public void onDelete(T object, boolean finalStateUnknown) {
      onEvent(group, scope, null, object, finalStateUnknown);
    }
  }
}
