package io.steward.operator.runtime.sharding;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
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

  private final BucketInformers informers;
  private final Consumer<Set<Integer>> queueEverything;
  /** Buckets whose informers run ahead of being owned. */
  private final Set<Integer> ahead = new HashSet<>();

  /**
   * @param queueEverything queues every cached object of the given buckets, the buckets taking
   *     turns: their events were dropped while they were not owned
   */
  public BucketCaches(BucketInformers informers, Consumer<Set<Integer>> queueEverything) {
    this.informers = informers;
    this.queueEverything = queueEverything;
  }

  /**
   * Buckets taken in one round: their caches first, then all of them is queued. Those listed ahead
   * are queued at once and together, taking turns; the others, listed together, once they all have.
   */
  public synchronized void acquired(Set<Integer> buckets) {
    Set<Integer> listed = new TreeSet<>();
    Set<Integer> listing = new TreeSet<>();
    for (int bucket : buckets) {
      boolean wasAhead = ahead.remove(bucket);
      (wasAhead && informers.bucketSynced(bucket) ? listed : listing).add(bucket);
    }
    if (!listing.isEmpty()) {
      informers.startBuckets(listing).thenRun(() -> queueEverything.accept(listing));
    }
    if (!listed.isEmpty()) {
      queueEverything.accept(listed);
    }
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
    Set<Integer> fresh = new TreeSet<>();
    for (int bucket : buckets) {
      if (ahead.add(bucket)) {
        fresh.add(bucket);
      }
    }
    if (!fresh.isEmpty()) {
      log.debug("Listing buckets {} ahead of taking them", fresh);
      informers.startBuckets(fresh);
    }
    for (int bucket : List.copyOf(ahead)) {
      if (!buckets.contains(bucket)) {
        log.debug("Bucket {} is not expected any more; its informers stop", bucket);
        ahead.remove(bucket);
        informers.stopBucket(bucket);
      }
    }
  }

  /** The buckets listed ahead of being taken ({@code steward_shard_buckets_listed_ahead}). */
  public synchronized Set<Integer> ahead() {
    return Set.copyOf(ahead);
  }
}
