package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Lister;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The informers of one kind, one per watched namespace (or one for all), read as one cache. In
 * sharded mode each namespace scope's informer holds only objects not labelled with a bucket yet;
 * the objects of the buckets this replica caches come from informers that list and watch the
 * buckets taken together ({@link BucketViews}), added and replaced as buckets move
 * ({@link Informers#startBuckets}).
 *
 * <p>Each informer has one handler, {@link Fanout}, which hands every event to the handlers added
 * here in the order they were added. client-java runs a thread per handler per informer, so handlers
 * added to each informer would cost a sharded replica a thread per handler, kind and bucket group.
 * The handlers only record and enqueue, so one thread per informer keeps up with them.
 */
public final class KindInformer<T extends KubernetesObject> implements InformerCache<T> {
  private final String resource;
  private final Map<String, SharedIndexInformer<T>> byNamespace;
  private final Map<String, Lister<T>> listers = new LinkedHashMap<>();
  private final Lister<T> allNamespaces;
  private final AtomicInteger size = new AtomicInteger();
  /** Sharded mode: the objects of the buckets cached here; null otherwise. */
  private final BucketViews<T> bucketViews;
  private final List<ResourceEventHandler<T>> handlers = new CopyOnWriteArrayList<>();
  private final Fanout fanout = new Fanout();
  private volatile boolean started;
  private volatile Misfiled<T> misfiled = (object, labelled, stillThere) -> {};

  /**
   * Sharded mode: told of each object a bucket's view shows (added or updated) whose name belongs to
   * another bucket, which its label does not say: no replica would reconcile it as it is.
   */
  @FunctionalInterface
  interface Misfiled<T> {
    /**
     * @param labelled the bucket its label names, whose view shows it
     * @param stillThere whether that view still shows it
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
    byNamespace.forEach((namespace, informer) -> listers.put(namespace, new Lister<>(informer.getIndexer())));
    this.allNamespaces = listers.get(Informers.ALL_NAMESPACES);
    byNamespace.values().forEach(informer -> informer.addEventHandler(fanout));
    this.bucketViews = buckets > 0 ? new BucketViews<>(buckets, fanout,
        (object, labelled, stillThere) -> misfiled.misfiled(object, labelled, stillThere)) : null;
    addEventHandler(new Counting());
  }

  String resource() {
    return resource;
  }

  @Override
  public T get(String namespace, String name) {
    String scope = allNamespaces != null ? Informers.ALL_NAMESPACES : namespace;
    if (bucketViews != null) {
      T object = bucketViews.get(scope, namespace, name);
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
    if (bucketViews != null) {
      bucketViews.addAllTo(all);
    }
    return all;
  }

  /** Sharded mode: the objects of the buckets cached here. */
  BucketViews<T> bucketViews() {
    return bucketViews;
  }

  void onMisfiled(Misfiled<T> listener) {
    misfiled = listener;
  }

  /** Whether the informers of {@code bucket} have completed their first list (false if there are none). */
  boolean bucketSynced(int bucket) {
    return bucketViews != null && bucketViews.synced(bucket);
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
