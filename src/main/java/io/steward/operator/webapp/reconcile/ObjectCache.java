package io.steward.operator.webapp.reconcile;

/** Read access to an informer cache: the reconciler reads current state from here, not the API server. */
@FunctionalInterface
public interface ObjectCache<T> {
  /** The cached object, or null when the cache has none. */
  T get(String namespace, String name);
}
