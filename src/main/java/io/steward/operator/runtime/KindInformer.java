package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Lister;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The informers of one kind, one per watched namespace (or one for all), read as one cache. */
public final class KindInformer<T extends KubernetesObject> implements InformerCache<T> {
  private final String resource;
  private final Map<String, SharedIndexInformer<T>> byNamespace;
  private final Map<String, Lister<T>> listers = new LinkedHashMap<>();
  private final Lister<T> allNamespaces;
  private final AtomicInteger size = new AtomicInteger();

  KindInformer(String resource, Map<String, SharedIndexInformer<T>> byNamespace) {
    this.resource = resource;
    this.byNamespace = byNamespace;
    byNamespace.forEach((namespace, informer) -> listers.put(namespace, new Lister<>(informer.getIndexer())));
    this.allNamespaces = listers.get(Informers.ALL_NAMESPACES);
    addEventHandler(new Counting());
  }

  String resource() {
    return resource;
  }

  @Override
  public T get(String namespace, String name) {
    Lister<T> lister = allNamespaces != null ? allNamespaces : listers.get(namespace);
    return lister == null ? null : lister.namespace(namespace).get(name);
  }

  /** Every cached object (a copy: for a periodic resync, not for a probe). */
  public List<T> list() {
    List<T> all = new ArrayList<>();
    byNamespace.values().forEach(informer -> all.addAll(informer.getIndexer().list()));
    return all;
  }

  /** How many objects the informers have delivered and not deleted: counted, so a probe copies nothing. */
  public int size() {
    return size.get();
  }

  /** Informer events for every watched namespace go to {@code handler}. */
  public void addEventHandler(ResourceEventHandler<T> handler) {
    byNamespace.values().forEach(informer -> informer.addEventHandler(handler));
  }

  boolean hasSynced() {
    return byNamespace.values().stream().allMatch(SharedIndexInformer::hasSynced);
  }

  /** The namespaces whose informer has not completed its first list. */
  List<String> unsynced() {
    return byNamespace.entrySet().stream().filter(e -> !e.getValue().hasSynced()).map(Map.Entry::getKey).toList();
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
