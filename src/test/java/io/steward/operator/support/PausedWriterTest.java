package io.steward.operator.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.steward.testing.cluster.AuditLog;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which late write of a resumed replica is the one it held at the freeze, and which are not. */
class PausedWriterTest {
  private static final Instant RESUMED = Instant.parse("2026-12-06T15:43:04.800Z");

  @Test
  void theFirstWriteRightAfterTheResumeIsTheOneHeldAtTheFreeze() {
    AuditLog.Entry held = write(RESUMED.plusMillis(130));

    PausedWriter.LateWrites late = PausedWriter.split(List.of(held), RESUMED);

    assertThat(late.heldAtFreeze()).contains(held);
    assertThat(late.passedTheGuard()).isEmpty();
  }

  @Test
  void onlyOneWriteIsExcused() {
    AuditLog.Entry first = write(RESUMED.plusMillis(20));
    AuditLog.Entry second = write(RESUMED.plusMillis(40));

    assertThat(PausedWriter.split(List.of(second, first), RESUMED).passedTheGuard()).containsExactly(second);
  }

  @Test
  void aWriteLaterThanTheFlushOrBeforeTheResumeIsNotExcused() {
    AuditLog.Entry late = write(RESUMED.plus(PausedWriter.RESUME_FLUSH));
    AuditLog.Entry whileStopped = write(RESUMED.minusMillis(1));

    PausedWriter.LateWrites split = PausedWriter.split(List.of(whileStopped, late), RESUMED);

    assertThat(split.heldAtFreeze()).isEmpty();
    assertThat(split.passedTheGuard()).containsExactly(whileStopped, late);
  }

  private static AuditLog.Entry write(Instant received) {
    return new AuditLog.Entry(received, "patch", "steward-operator", "steward/p0-fence-pause", "", "events", "",
        "fence-pause", "app-2.y7qXI8H2Dq0Z", 200, "", "", "/api/v1/namespaces/fence-pause/events/app-2.y7qXI8H2Dq0Z");
  }
}
