package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The benchmark's helpers for comparing JVM variants, without a cluster. */
class StewardBenchmarkTest {

  @Test
  void aVariantsUpperCaseAssignmentsAreEnvironmentAndTheRestJvmOptions() {
    List<String> variant = List.of("MALLOC_ARENA_MAX=2", "-XX:TrimNativeHeapInterval=5000", "-Dsteward.workers=4");
    assertThat(StewardBenchmark.environmentIn(variant)).isEqualTo(Map.of("MALLOC_ARENA_MAX", "2"));
    assertThat(StewardBenchmark.jvmOptionsIn(variant))
        .containsExactly("-XX:TrimNativeHeapInterval=5000", "-Dsteward.workers=4");
  }

  @Test
  void threadsAreCountedByPoolWithTheirNumbersTakenOut() {
    String dump = """
        2026-12-04 17:21:56
        Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

        "http-nio-127.0.0.1-8081-exec-1" #30 daemon prio=5 os_prio=0 cpu=0.10ms elapsed=27.1s tid=0x1 nid=0x2 waiting on condition  [0x3]
           java.lang.Thread.State: WAITING (parking)

        "http-nio-127.0.0.1-8081-exec-2" #31 daemon prio=5 os_prio=0 cpu=0.10ms elapsed=27.1s tid=0x1 nid=0x2 waiting on condition  [0x3]

        "workqueue-delays" #40 daemon prio=5 os_prio=0 cpu=0.10ms elapsed=27.1s tid=0x1 nid=0x2 waiting on condition  [0x3]

        "GC Thread#0" os_prio=0 cpu=12.01ms elapsed=27.9s tid=0x1 nid=0x2 runnable
        """;
    assertThat(StewardBenchmark.threadsByPool(dump).lines().toList()).containsExactly(
        "   2 http-nio-#.#.#.#-#-exec-#", "   1 workqueue-delays", "   1 GC Thread##", "   4 in all");
  }

  @Test
  void anOptionSetComparedTwiceIsRefusedByName() {
    assertThat(BenchSettings.compared("-Da=1; -Db=2")).containsExactly(List.of("-Da=1"), List.of("-Db=2"));
    assertThatThrownBy(() -> BenchSettings.compared("-Da=1;-Da=1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lists an option set twice (-Da=1;-Da=1)");
  }
}
