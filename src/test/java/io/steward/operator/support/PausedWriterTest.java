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

    assertThat(PausedWriter.heldAtFreeze(List.of(held), RESUMED)).contains(held);
    assertThat(PausedWriter.sentAfterResume(List.of(held), RESUMED)).isEmpty();
  }

  @Test
  void onlyOneWriteIsExcused() {
    AuditLog.Entry first = write(RESUMED.plusMillis(20));
    AuditLog.Entry second = write(RESUMED.plusMillis(40));

    assertThat(PausedWriter.sentAfterResume(List.of(second, first), RESUMED)).containsExactly(second);
  }

  @Test
  void aWriteLaterThanTheFlushOrBeforeTheResumeIsNotExcused() {
    AuditLog.Entry late = write(RESUMED.plus(PausedWriter.RESUME_FLUSH));
    AuditLog.Entry whileStopped = write(RESUMED.minusMillis(1));

    assertThat(PausedWriter.heldAtFreeze(List.of(late, whileStopped), RESUMED)).isEmpty();
    assertThat(PausedWriter.sentAfterResume(List.of(whileStopped, late), RESUMED))
        .containsExactly(whileStopped, late);
  }

  private static AuditLog.Entry write(Instant received) {
    return new AuditLog.Entry(received, "patch", "steward-operator", "steward/p0-fence-pause", "", "events", "",
        "fence-pause", "app-2.y7qXI8H2Dq0Z", 200, "", "", "/api/v1/namespaces/fence-pause/events/app-2.y7qXI8H2Dq0Z");
  }
}
