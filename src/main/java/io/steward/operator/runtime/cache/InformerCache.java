package io.steward.operator.runtime.cache;

/**
 * Read access to what the informers hold of one kind: a reconciler reads current state from here,
 * not from the API server.
 */
@FunctionalInterface
public interface InformerCache<T> {
  /** The cached object, or null when the cache has none. */
  T get(String namespace, String name);
}
