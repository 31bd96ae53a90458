package io.steward.operator.runtime;

import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;

/**
 * Sharded mode, in front of a controller's reconciler: a request runs only if its bucket is this
 * replica's now, and runs with that bucket bound to the worker's thread, so that each of its writes
 * is judged by that bucket's term ({@link BucketTerms}). Requests for other buckets are dropped;
 * when a bucket is taken, everything cached of it is queued again ({@link ManagedController#requeue}).
 */
public final class BucketGate {
  private final BucketOwnership ownership;
  private final BucketTerms terms;

  public BucketGate(BucketOwnership ownership, BucketTerms terms) {
    this.ownership = ownership;
    this.terms = terms;
  }

  public int bucketOf(Request request) {
    return terms.bucketOf(request.getNamespace(), request.getName());
  }

  Reconciler around(Reconciler reconciler) {
    return request -> {
      int bucket = bucketOf(request);
      if (!ownership.accepts(bucket)) {
        return new Result(false);
      }
      return BucketTerms.within(bucket, () -> reconciler.reconcile(request));
    };
  }
}
