package io.steward.operator.runtime.sharding;

import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import java.time.Duration;
import java.util.function.IntPredicate;

/**
 * Sharded mode, in front of a controller's reconciler: a request runs only if its bucket is this
 * replica's now, and runs with that bucket bound to the worker's thread, so that each of its writes
 * is judged by that bucket's term ({@link BucketTerms}).
 *
 * <ul>
 *   <li>A request for a bucket owned elsewhere is dropped: its owner has it.
 *   <li>A request for a bucket whose caches are still listing is dropped: once they have listed,
 *       everything in them is queued ({@link BucketCaches#acquired}).
 *   <li>A request for a bucket this replica still owns but whose term has lapsed (a renewal slower
 *       than the term) is put back for a retry period, and so is one whose pass ended with the term
 *       lapsed (its writes from then on were refused): a renewal still on its way may bring the term
 *       back without the bucket ever being lost and re-taken, and then nothing else would queue it.
 * </ul>
 */
public final class BucketGate {
  /** What the gate asks of bucket ownership ({@link BucketOwnership}). */
  public interface OwnedBuckets {
    /** The bucket is this replica's, whether or not its term is valid right now. */
    boolean owns(int bucket);

    /** A pass for the bucket may start here now. */
    boolean accepts(int bucket);
  }

  private final OwnedBuckets ownership;
  private final BucketTerms terms;
  private final IntPredicate cachesSynced;
  private final Duration retryAfterLapse;

  /**
   * @param ownership which buckets are this replica's ({@link BucketOwnership})
   * @param cachesSynced whether the caches of a bucket have listed: until then a pass would see nothing of it
   * @param retryAfterLapse when to retry a request turned away by a lapsed term: the ownership's retry
   *     period, by when the bucket is either renewed or lost
   */
  public BucketGate(OwnedBuckets ownership, BucketTerms terms, IntPredicate cachesSynced, Duration retryAfterLapse) {
    this.ownership = ownership;
    this.terms = terms;
    this.cachesSynced = cachesSynced;
    this.retryAfterLapse = retryAfterLapse;
  }

  public int bucketOf(Request request) {
    return terms.bucketOf(request.getNamespace(), request.getName());
  }

  /** {@code reconciler}, gated: for {@code ControllerManager.wrapReconcilers}. */
  public Reconciler around(Reconciler reconciler) {
    return request -> {
      int bucket = bucketOf(request);
      if (lapsed(bucket)) {
        return new Result(true, retryAfterLapse);
      }
      if (!ownership.accepts(bucket) || !cachesSynced.test(bucket)) {
        return new Result(false);
      }
      Result result = BucketTerms.within(bucket, () -> reconciler.reconcile(request));
      return lapsed(bucket) && !result.isRequeue() ? new Result(true, retryAfterLapse) : result;
    };
  }

  private boolean lapsed(int bucket) {
    return ownership.owns(bucket) && !ownership.accepts(bucket);
  }
}
