package io.steward.operator.runtime;

import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import java.util.function.IntPredicate;

/**
 * Sharded mode, in front of a controller's reconciler: a request runs only if its bucket is this
 * replica's now, and runs with that bucket bound to the worker's thread, so that each of its writes
 * is judged by that bucket's term ({@link BucketTerms}). Requests for other buckets, or for one whose
 * caches are still listing, are dropped; once a taken bucket's caches have listed, everything in them
 * is queued ({@link ManagedController#requeue}).
 */
public final class BucketGate {
  private final BucketOwnership ownership;
  private final BucketTerms terms;
  private final IntPredicate cachesSynced;

  /** @param cachesSynced whether the caches of a bucket have listed: until then a pass would see nothing of it */
  public BucketGate(BucketOwnership ownership, BucketTerms terms, IntPredicate cachesSynced) {
    this.ownership = ownership;
    this.terms = terms;
    this.cachesSynced = cachesSynced;
  }

  public int bucketOf(Request request) {
    return terms.bucketOf(request.getNamespace(), request.getName());
  }

  Reconciler around(Reconciler reconciler) {
    return request -> {
      int bucket = bucketOf(request);
      if (!ownership.accepts(bucket) || !cachesSynced.test(bucket)) {
        return new Result(false);
      }
      return BucketTerms.within(bucket, () -> reconciler.reconcile(request));
    };
  }
}
