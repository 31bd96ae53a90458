package io.steward.operator.support;

import io.steward.testing.cluster.AuditLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The one write a replica frozen by SIGSTOP may still send once resumed, read from the audit log.
 * A thread that had passed the write fence's check and not yet handed its request to the socket when
 * the process froze sends it the moment the process runs again: no check in the client can take that
 * back (docs/fencing.md, "What the local guard cannot do"; in a pod the server-side fence refuses it, unless it
 * is an Event, which that fence leaves alone). Such a write is the first the replica sends after
 * SIGCONT, and it arrives at once. Every other write after its term is one the fence let through.
 */
public final class PausedWriter {
  /** How soon after SIGCONT a request held at the freeze reaches the API server, at most, on a loaded machine. */
  static final Duration RESUME_FLUSH = Duration.ofMillis(500);

  private PausedWriter() {
  }

  /**
   * {@code lateWrites} (writes by one replica after its term, as the API server received them), with
   * the one it may have held at the freeze set apart: the first received at or after {@code resumed},
   * if it came within {@link #RESUME_FLUSH}. One per freeze: a second thread in the same instant
   * between check and socket is too unlikely to excuse.
   */
  public static LateWrites split(List<AuditLog.Entry> lateWrites, Instant resumed) {
    Optional<AuditLog.Entry> held = lateWrites.stream().filter(e -> !e.received().isBefore(resumed))
        .min(Comparator.comparing(AuditLog.Entry::received))
        .filter(e -> e.received().isBefore(resumed.plus(RESUME_FLUSH)));
    List<AuditLog.Entry> others = new ArrayList<>(lateWrites);
    held.ifPresent(others::remove);
    return new LateWrites(held, others);
  }

  /**
   * @param heldAtFreeze the write a thread held between the guard and the socket, if one was sent on SIGCONT
   * @param passedTheGuard the others: writes no fence may let through
   */
  public record LateWrites(Optional<AuditLog.Entry> heldAtFreeze, List<AuditLog.Entry> passedTheGuard) {
  }
}
