package io.steward.operator.webapp.reconcile;

/**
 * A cache the reconciler also tells about its own successful writes, so that its next read returns
 * what it wrote even before the informer's watch has delivered it.
 */
public interface WriteAwareCache<T> extends ObjectCache<T> {
  /**
   * Runs {@code request}, the create of {@code object}. While it is in flight, the informer's add
   * event for that name is its echo (anyone else's object of that name makes the create fail, and a
   * failed create is retried anyway), so the event need not wake another pass.
   */
  <R> R creating(T object, java.util.function.Supplier<R> request);

  /** A write succeeded: {@code before} is the object it replaced (null: created), {@code after} the result (null: deleted). */
  void written(T before, T after);
}
