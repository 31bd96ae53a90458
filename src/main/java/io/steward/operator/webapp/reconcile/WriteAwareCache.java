package io.steward.operator.webapp.reconcile;

/**
 * A cache the reconciler also tells about its own successful writes, so that its next read returns
 * what it wrote even before the informer's watch has delivered it.
 */
public interface WriteAwareCache<T> extends ObjectCache<T> {
  /** A write succeeded: {@code before} is the object it replaced (null: created), {@code after} the result (null: deleted). */
  void written(T before, T after);
}
