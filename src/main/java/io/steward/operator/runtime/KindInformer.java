package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.informer.cache.Lister;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The informers of one kind, one per watched namespace (or one for all), read as one cache. In
 * sharded mode each namespace scope also has one informer per bucket this replica owns, added and
 * removed as buckets move ({@link Informers#startBucket}); the namespace's own informer then holds
 * only objects not labelled with a bucket yet.
 *
 * <p>Each informer has one handler, {@link Fanout}, which hands every event to the handlers added
 * here in the order they were added. client-java runs a thread per handler per informer, so handlers
 * added to each informer would cost a sharded replica a thread per handler, kind and owned bucket.
 * The handlers only record and enqueue, so one thread per informer keeps up with them.
 */
public final class KindInformer<T extends KubernetesObject> implements InformerCache<T> {
  private final String resource;
  private final Map<String, SharedIndexInformer<T>> byNamespace;
  private final Map<String, Lister<T>> listers = new LinkedHashMap<>();
  private final Lister<T> allNamespaces;
  private final AtomicInteger size = new AtomicInteger();
  /** Sharded mode: namespace scope → bucket → informer of that bucket's objects. */
  private final Map<String, Map<Integer, SharedIndexInformer<T>>> byBucket = new ConcurrentHashMap<>();
  private final List<ResourceEventHandler<T>> handlers = new CopyOnWriteArrayList<>();
  private final Fanout fanout = new Fanout();
  private volatile boolean started;
  private final int buckets;
  private volatile Misfiled<T> misfiled = (object, labelled, stillThere) -> {};

  /**
   * Sharded mode: told of each object a bucket's informer shows (added or updated) whose name belongs
   * to another bucket, which its label does not say: no replica would reconcile it as it is.
   */
  @FunctionalInterface
  interface Misfiled<T> {
    /**
     * @param labelled the bucket its label names, whose informer holds it
     * @param stillThere whether that informer still holds it
     */
    void misfiled(T object, int labelled, BooleanSupplier stillThere);
  }

  KindInformer(String resource, Map<String, SharedIndexInformer<T>> byNamespace) {
    this(resource, byNamespace, 0);
  }

  /** @param buckets sharded mode: the number of buckets; 0 otherwise */
  KindInformer(String resource, Map<String, SharedIndexInformer<T>> byNamespace, int buckets) {
    this.resource = resource;
    this.byNamespace = byNamespace;
    this.buckets = buckets;
    byNamespace.forEach((namespace, informer) -> listers.put(namespace, new Lister<>(informer.getIndexer())));
    this.allNamespaces = listers.get(Informers.ALL_NAMESPACES);
    byNamespace.values().forEach(informer -> informer.addEventHandler(fanout));
    addEventHandler(new Counting());
  }

  String resource() {
    return resource;
  }

  @Override
  public T get(String namespace, String name) {
    String scope = allNamespaces != null ? Informers.ALL_NAMESPACES : namespace;
    if (buckets > 0) {
      SharedIndexInformer<T> bucket = byBucket.getOrDefault(scope, Map.of())
          .get(BucketHash.bucketOf(namespace, name, buckets));
      T object = bucket == null ? null : new Lister<>(bucket.getIndexer()).namespace(namespace).get(name);
      if (object != null) {
        return object;
      }
    }
    Lister<T> lister = listers.get(scope);
    return lister == null ? null : lister.namespace(namespace).get(name);
  }

  /** Every cached object (a copy: for a periodic resync, not for a probe). */
  public List<T> list() {
    List<T> all = new ArrayList<>();
    byNamespace.values().forEach(informer -> all.addAll(informer.getIndexer().list()));
    byBucket.values().forEach(scope -> scope.values().forEach(informer -> all.addAll(informer.getIndexer().list())));
    return all;
  }

  /** Adds the informer of {@code bucket} in namespace scope {@code scope}, with every handler added so far. */
  void addBucket(String scope, int bucket, SharedIndexInformer<T> informer) {
    informer.addEventHandler(new BucketFanout(bucket, informer));
    byBucket.computeIfAbsent(scope, s -> new ConcurrentHashMap<>()).put(bucket, informer);
  }

  /**
   * Removes the informers of {@code bucket}: their objects leave this replica's view, so every
   * handler is told they are gone (finalStateUnknown), which keeps counts and gauges right.
   */
  List<SharedIndexInformer<T>> removeBucket(int bucket) {
    List<SharedIndexInformer<T>> removed = new ArrayList<>();
    byBucket.values().forEach(scope -> {
      SharedIndexInformer<T> informer = scope.remove(bucket);
      if (informer != null) {
        removed.add(informer);
      }
    });
    return removed;
  }

  void forgetAll(SharedIndexInformer<T> informer) {
    for (T object : informer.getIndexer().list()) {
      handlers.forEach(handler -> handler.onDelete(object, true));
    }
  }

  /** Stops every bucket's informer without telling the handlers: the process is stopping. */
  void stopAllBuckets() {
    byBucket.values().forEach(scope -> {
      scope.values().forEach(SharedIndexInformer::stop);
      scope.clear();
    });
  }

  void onMisfiled(Misfiled<T> listener) {
    misfiled = listener;
  }

  private boolean runs(int bucket, SharedIndexInformer<T> informer) {
    return byBucket.values().stream().anyMatch(scope -> scope.get(bucket) == informer);
  }

  boolean hasBucket(int bucket) {
    return byBucket.values().stream().anyMatch(scope -> scope.containsKey(bucket));
  }

  /** Whether the informers of {@code bucket} have completed their first list (false if there are none). */
  boolean bucketSynced(int bucket) {
    boolean any = false;
    for (Map<Integer, SharedIndexInformer<T>> scope : byBucket.values()) {
      SharedIndexInformer<T> informer = scope.get(bucket);
      if (informer != null) {
        any = true;
        if (!informer.hasSynced()) {
          return false;
        }
      }
    }
    return any;
  }

  /** How many objects the informers have delivered and not deleted: counted, so a probe copies nothing. */
  public int size() {
    return size.get();
  }

  /**
   * Informer events for every watched namespace go to {@code handler}, after the handlers added
   * before it. Before the informers start only: a later handler would miss the objects already listed.
   */
  public void addEventHandler(ResourceEventHandler<T> handler) {
    if (started) {
      throw new IllegalStateException("the informers of " + resource + " have started: a handler added now would "
          + "miss the objects already listed");
    }
    handlers.add(handler);
  }

  /** The informers start: the handlers are complete. */
  void starting() {
    started = true;
  }

  boolean hasSynced() {
    return byNamespace.values().stream().allMatch(SharedIndexInformer::hasSynced);
  }

  /** The namespaces whose informer has not completed its first list. */
  List<String> unsynced() {
    return byNamespace.entrySet().stream().filter(e -> !e.getValue().hasSynced()).map(Map.Entry::getKey).toList();
  }

  /**
   * Every handler in turn, on the informer's one listener thread. A handler that throws does not keep
   * the event from the handlers after it; client-java logs what it throws, as it would have.
   */
  private class Fanout implements ResourceEventHandler<T> {
    @Override
    public void onAdd(T object) {
      deliver(handler -> handler.onAdd(object));
    }

    @Override
    public void onUpdate(T before, T after) {
      deliver(handler -> handler.onUpdate(before, after));
    }

    @Override
    public void onDelete(T object, boolean finalStateUnknown) {
      deliver(handler -> handler.onDelete(object, finalStateUnknown));
    }

    private void deliver(Consumer<ResourceEventHandler<T>> event) {
      RuntimeException failure = null;
      for (ResourceEventHandler<T> handler : handlers) {
        try {
          event.accept(handler);
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  /** A bucket informer's {@link Fanout}, which also reports the objects it holds that are not of its bucket. */
  private final class BucketFanout extends Fanout {
    private final int bucket;
    private final SharedIndexInformer<T> informer;

    BucketFanout(int bucket, SharedIndexInformer<T> informer) {
      this.bucket = bucket;
      this.informer = informer;
    }

    @Override
    public void onAdd(T object) {
      check(object);
      super.onAdd(object);
    }

    @Override
    public void onUpdate(T before, T after) {
      check(after);
      super.onUpdate(before, after);
    }

    private void check(T object) {
      if (BucketHash.bucketOf(object.getMetadata().getNamespace(), object.getMetadata().getName(), buckets) != bucket) {
        String key = Caches.metaNamespaceKeyFunc(object);
        misfiled.misfiled(object, bucket, () -> runs(bucket, informer) && informer.getIndexer().getByKey(key) != null);
      }
    }
  }

  private final class Counting implements ResourceEventHandler<T> {
    @Override
    public void onAdd(T object) {
      size.incrementAndGet();
    }

    @Override
    public void onUpdate(T before, T after) {}

    @Override
    public void onDelete(T object, boolean finalStateUnknown) {
      size.decrementAndGet();
    }
  }
}
