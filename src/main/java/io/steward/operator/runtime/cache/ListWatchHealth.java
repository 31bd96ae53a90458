package io.steward.operator.runtime.cache;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one informer can list and watch. client-java's reflector retries a failed list or watch
 * every second forever and, by default, logs each failure with a stack trace while the informer
 * silently serves an ever older cache. This records failures instead (through the informer's
 * exception handler) and successes (a list that returned, through its lister-watcher): an informer
 * whose failures have lasted longer than the grace period is {@link #failing}, which readiness
 * reports, and it logs one line when that starts and one when it ends.
 */
public final class ListWatchHealth {
  private static final Logger log = LoggerFactory.getLogger(ListWatchHealth.class);

  /** A failure, and since when the informer has failed without a successful list in between. */
  public record Failure(Instant since, String error) {}

  private final String name;
  private final Duration grace;
  private final Clock clock;
  private final AtomicLong failures = new AtomicLong();
  private volatile Failure current;
  private volatile boolean reported;

  public ListWatchHealth(String name, Duration grace, Clock clock) {
    this.name = name;
    this.grace = grace;
    this.clock = clock;
  }

  public String name() {
    return name;
  }

  /** List and watch failures so far (a counter for metrics). */
  public long failures() {
    return failures.get();
  }

  /** The ongoing failure once it has outlasted the grace period; null while healthy or within grace. */
  public Failure failing() {
    Failure failure = current;
    return failure != null && outlastedGrace(failure) ? failure : null;
  }

  private boolean outlastedGrace(Failure failure) {
    return Duration.between(failure.since(), clock.instant()).compareTo(grace) >= 0;
  }

  /** For the informer's exception handler: one failed list or watch. */
  public void failed(Throwable error) {
    failures.incrementAndGet();
    Failure previous = current;
    Failure failure = new Failure(previous == null ? clock.instant() : previous.since(), describe(error));
    current = failure;
    log.debug("Informer for {} failed to list or watch", name, error);
    if (!reported && outlastedGrace(failure)) {
      reported = true;
      log.warn("Informer for {} has failed to list or watch since {}: {}", name, failure.since(), failure.error());
    }
  }

  /** A list succeeded: the informer's cache is current again. */
  public void listed() {
    if (current != null) {
      if (reported) {
        log.info("Informer for {} lists and watches again", name);
      }
      current = null;
      reported = false;
    }
  }

  public <T extends KubernetesObject> BiConsumer<Class<T>, Throwable> exceptionHandler() {
    return (type, error) -> failed(error);
  }

  private static String describe(Throwable error) {
    if (error instanceof ApiException api && api.getCode() > 0) {
      String body = api.getResponseBody() == null ? "" : api.getResponseBody().strip();
      return "HTTP " + api.getCode() + (body.isEmpty() ? "" : ": " + abbreviate(body));
    }
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return abbreviate(message);
  }

  private static String abbreviate(String text) {
    String line = text.replaceAll("\\s+", " ");
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }
}
