package io.steward.operator.runtime.cache;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Lister;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The informers of one kind, one per watched namespace (or one for all), read as one cache. An
 * {@link Extension} may serve more of the kind's objects from informers of its own (sharded mode's
 * buckets); they are read and handled as if the kind's own informers held them.
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
  private volatile Extension<T> extension;
  private final List<ResourceEventHandler<T>> handlers = new CopyOnWriteArrayList<>();
  private final Fanout fanout = new Fanout();
  private volatile boolean started;

  /** More objects of the kind, from informers of the extension's own, which deliver to {@link #handlers}. */
  public interface Extension<T> {
    /** The object, if the extension holds it; {@code scope} is the namespace scope a lookup goes to. */
    T get(String scope, String namespace, String name);

    /** Adds every object the extension holds. */
    void addAllTo(List<T> all);

    /** When the informer that holds {@code object} began watching; null if none of the extension's does. */
    OffsetDateTime watchingSince(T object);
  }

  public KindInformer(String resource, Map<String, SharedIndexInformer<T>> byNamespace) {
    this.resource = resource;
    this.byNamespace = byNamespace;
    byNamespace.forEach((namespace, informer) -> listers.put(namespace, new Lister<>(informer.getIndexer())));
    this.allNamespaces = listers.get(Informers.ALL_NAMESPACES);
    byNamespace.values().forEach(informer -> informer.addEventHandler(fanout));
    addEventHandler(new Counting());
  }

  String resource() {
    return resource;
  }

  /** Serves also what {@code extension} holds; once only. */
  public synchronized void extend(Extension<T> extension) {
    if (this.extension != null) {
      throw new IllegalStateException("the " + resource + " informers have an extension already");
    }
    this.extension = extension;
  }

  /** Every handler added here, in turn: where an extension's informers deliver their events. */
  public ResourceEventHandler<T> handlers() {
    return fanout;
  }

  /**
   * When the informer that holds {@code object} began watching: an extension's, if one holds it, else
   * {@code otherwise} (the kind's own informers' start).
   */
  public OffsetDateTime watchingSince(T object, OffsetDateTime otherwise) {
    Extension<T> current = extension;
    OffsetDateTime since = current == null ? null : current.watchingSince(object);
    return since == null ? otherwise : since;
  }

  @Override
  public T get(String namespace, String name) {
    String scope = allNamespaces != null ? Informers.ALL_NAMESPACES : namespace;
    Extension<T> current = extension;
    if (current != null) {
      T object = current.get(scope, namespace, name);
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
    Extension<T> current = extension;
    if (current != null) {
      current.addAllTo(all);
    }
    return all;
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
