package io.steward.operator.webapp.reconcile;

/**
 * A write lost an optimistic-concurrency race (HTTP 409 on update, or a create that found the object
 * already there): the informer cache was behind. Not an error; the request is simply retried once
 * the cache has caught up.
 */
public final class StaleCacheException extends RuntimeException {
  public StaleCacheException(String message) {
    super(message, null, false, false);
  }
}
