package io.steward.operator.runtime.sharding;

import io.steward.operator.runtime.election.LeaseTerm;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.election.WriteTerms;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import okhttp3.Request;

/**
 * One {@link LeaseTerm} per bucket, and the bucket a write is for. A worker binds the bucket of the
 * object it reconciles to its thread for the length of the pass ({@link #within}); the
 * {@link WriteFence} runs on the same thread for OkHttp's synchronous calls, which are the only
 * calls the reconcilers make, and judges the write by that bucket's term. A write sent from a thread
 * with no bucket bound (an asynchronous call, a thread of a library) belongs to no term and is
 * refused: forgetting to bind fails closed. Events are the one exception, as for the leader: they
 * record what happened and change no object.
 *
 * <p>A request tag would travel with the request, but client-java builds its requests itself and
 * offers no way to add one; the thread binding covers every request a pass makes without that.
 */
public final class BucketTerms implements WriteTerms {
  private static final ThreadLocal<Integer> CURRENT = new ThreadLocal<>();
  private static final LeaseTerm EVENTS = LeaseTerm.unfenced();

  private final AtomicReferenceArray<LeaseTerm> terms;
  private final Duration renewDeadline;
  private final Duration retryPeriod;

  public BucketTerms(int buckets, Duration renewDeadline, Duration retryPeriod) {
    this.renewDeadline = renewDeadline;
    this.retryPeriod = retryPeriod;
    terms = new AtomicReferenceArray<>(buckets);
    for (int bucket = 0; bucket < buckets; bucket++) {
      terms.set(bucket, newTerm());
    }
  }

  private LeaseTerm newTerm() {
    return LeaseTerm.forLease(renewDeadline, retryPeriod, System::nanoTime);
  }

  /** How long a term lasts after the send of its last Lease write. */
  public Duration termLength() {
    return terms.get(0).length();
  }

  public int buckets() {
    return terms.length();
  }

  /** The bucket's current term (valid or not). */
  public LeaseTerm term(int bucket) {
    return terms.get(bucket);
  }

  /**
   * The term to grant on taking the bucket: a new one if the last has ended, since an ended term
   * stays ended ({@link LeaseTerm#end}) and a renewal still in flight from it must not count.
   */
  LeaseTerm termToGrant(int bucket) {
    return terms.updateAndGet(bucket, term -> term.isOver() || term.hasEnded() ? newTerm() : term);
  }

  public int bucketOf(String namespace, String name) {
    return BucketHash.bucketOf(namespace, name, terms.length());
  }

  /** Runs {@code work} with {@code bucket} bound to this thread: its writes are judged by that bucket's term. */
  public static <T> T within(int bucket, Supplier<T> work) {
    Integer outer = CURRENT.get();
    CURRENT.set(bucket);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  @Override
  public LeaseTerm termOf(Request request) {
    if (isEvent(request)) {
      return EVENTS;
    }
    Integer bucket = CURRENT.get();
    return bucket == null || bucket < 0 || bucket >= terms.length() ? null : terms.get(bucket);
  }

  private static boolean isEvent(Request request) {
    String path = request.url().encodedPath();
    return path.startsWith("/apis/events.k8s.io/") || (path.startsWith("/api/v1/") && path.endsWith("/events"))
        || (path.startsWith("/api/v1/") && path.contains("/events/"));
  }
}
