package io.steward.operator.runtime.election;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The one place every request of Steward's passes before it leaves the process: a mutating request
 * is sent only while the {@link LeaseTerm} it belongs to is valid: the leader's, or in sharded mode
 * the term of the write's bucket (see {@link WriteTerms}). Lease requests are exempt (they are
 * how a term is won and kept). A refused request is not sent; the caller sees a
 * {@link FencedWriteException} and the refusal is counted.
 *
 * <p>A network interceptor, so the check runs after a connection is at hand, as close to the send
 * as OkHttp allows. What it cannot close is the instant between the check and the socket write: a
 * process frozen exactly there sends once it resumes. The admission policy that compares the
 * requesting pod with the Lease holder closes that on the server, where bound tokens exist.
 */
public final class WriteFence implements Interceptor {
  private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");
  private static final String LEASES = "/apis/coordination.k8s.io/";

  private final WriteTerms terms;
  private final boolean enabled;
  private final Counter refused;
  /** Writes that passed the guard and have not been answered yet, by term; guarded by itself. */
  private final Object inFlightLock = new Object();
  private final Map<LeaseTerm, Integer> inFlight = new IdentityHashMap<>();

  /**
   * @param enabled false only in tests that show what the API server refuses by itself
   */
  public WriteFence(LeaseTerm term, boolean enabled, MeterRegistry registry) {
    this(WriteTerms.single(term), enabled, registry);
  }

  public WriteFence(WriteTerms terms, boolean enabled, MeterRegistry registry) {
    this.terms = terms;
    this.enabled = enabled;
    this.refused = Counter.builder("steward_fencing_refused_writes")
        .description("Writes not sent because this replica's leadership term was over").register(registry);
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    if (!MUTATING.contains(request.method()) || request.url().encodedPath().startsWith(LEASES)) {
      return chain.proceed(request);
    }
    LeaseTerm term = terms.termOf(request);
    synchronized (inFlightLock) {
      if (enabled && (term == null || !term.isValid())) {
        refused.increment();
        throw new FencedWriteException(request.method() + " " + request.url().encodedPath());
      }
      if (term != null) {
        inFlight.merge(term, 1, Integer::sum);
      }
    }
    try {
      return chain.proceed(request);
    } finally {
      if (term != null) {
        synchronized (inFlightLock) {
          inFlight.merge(term, -1, (count, minus) -> count + minus == 0 ? null : count + minus);
          inFlightLock.notifyAll();
        }
      }
    }
  }

  /**
   * Waits until every write that passed the guard has been answered, so that after a release
   * nothing of this replica's is still on its way to the API server. Call it after the term ended.
   * Returns false if {@code timeout} ran out first.
   */
  public boolean awaitWritesAnswered(Duration timeout) throws InterruptedException {
    return awaitWritesAnswered(null, timeout);
  }

  /** As {@link #awaitWritesAnswered(Duration)}, for the writes of one term only (null: of all). */
  public boolean awaitWritesAnswered(LeaseTerm term, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (inFlightLock) {
      while (term == null ? !inFlight.isEmpty() : inFlight.containsKey(term)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(inFlightLock, left);
      }
      return true;
    }
  }

  public double refusals() {
    return refused.count();
  }

  /** A write that was not sent because the leadership term was over. */
  public static final class FencedWriteException extends IOException {
    FencedWriteException(String what) {
      super("not sent, this replica's leadership term (of the leader Lease or of the write's bucket) is over: "
          + what);
    }

    /** True when {@code failure} or one of its causes is a refusal by the fence. */
    public static boolean isCauseOf(Throwable failure) {
      for (Throwable t = failure; t != null; t = t.getCause()) {
        if (t instanceof FencedWriteException) {
          return true;
        }
      }
      return false;
    }
  }
}
