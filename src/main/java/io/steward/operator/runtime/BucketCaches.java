package io.steward.operator.runtime;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded mode: which buckets' informers run on this replica. Those of the buckets it owns, and
 * those of the buckets it expects to take next ({@link BucketOwnership.Listener#expecting}): a
 * replica that takes a dead one's buckets would otherwise start from three lists per bucket, sent
 * together for every bucket it takes, on an API server that is also serving the other survivors'.
 * Listed ahead, a bucket's work starts as soon as it is taken. The informers of a bucket that is
 * expected no longer (its holder renewed after all, the assignment changed) are stopped.
 *
 * <p>Nothing of a bucket is reconciled before it is owned: the {@link BucketGate} drops its requests.
 */
public final class BucketCaches {
  private static final Logger log = LoggerFactory.getLogger(BucketCaches.class);

  private final Informers informers;
  private final IntConsumer queueEverything;
  /** Buckets whose informers run ahead of being owned. */
  private final Set<Integer> ahead = new HashSet<>();

  /**
   * @param queueEverything queues every cached object of a bucket: its events were dropped while
   *     it was not owned
   */
  public BucketCaches(Informers informers, IntConsumer queueEverything) {
    this.informers = informers;
    this.queueEverything = queueEverything;
  }

  /** A bucket taken: its caches first (already listed if it was expected), then all of it is queued. */
  public synchronized void acquired(int bucket) {
    ahead.remove(bucket);
    CompletableFuture<Void> synced = informers.startBucket(bucket);
    synced.thenRun(() -> queueEverything.accept(bucket));
  }

  /** A bucket released or lost: its objects leave the caches. */
  public synchronized void letGo(int bucket) {
    ahead.remove(bucket);
    informers.stopBucket(bucket);
  }

  /**
   * The buckets expected next, none of them owned here: their informers start; those of buckets no
   * longer expected stop (a bucket taken meanwhile left this set when it was {@link #acquired}).
   */
  public synchronized void expecting(Set<Integer> buckets) {
    for (int bucket : buckets) {
      if (ahead.add(bucket)) {
        log.debug("Listing bucket {} ahead of taking it", bucket);
        informers.startBucket(bucket);
      }
    }
    for (int bucket : List.copyOf(ahead)) {
      if (!buckets.contains(bucket)) {
        log.debug("Bucket {} is not expected any more; its informers stop", bucket);
        ahead.remove(bucket);
        informers.stopBucket(bucket);
      }
    }
  }

  /** The buckets listed ahead of being taken, for the shards endpoint. */
  public synchronized Set<Integer> ahead() {
    return Set.copyOf(ahead);
  }
}
