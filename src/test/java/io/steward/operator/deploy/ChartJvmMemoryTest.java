package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.steward.testing.SourceFileJvm;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A pod's JVM gives back the heap a burst grew once the operator is at rest. G1 shrinks the heap only
 * in a full collection or at the end of a concurrent cycle, and an operator at rest starts neither, so
 * without a periodic collection a pod would hold its peak memory until the next burst. Fails if the
 * chart drops {@code -XX:G1PeriodicGCInterval}, or no longer shrinks a mostly free heap
 * ({@code -XX:MaxHeapFreeRatio}).
 */
class ChartJvmMemoryTest {
  private static final String PERIODIC = "-XX:G1PeriodicGCInterval=";
  private static final Pattern COMMITTED = Pattern.compile("burst (\\d+) MiB committed, at rest (\\d+) MiB committed");

  @Test
  void theHeapABurstGrewIsGivenBackAtRest() throws Exception {
    List<String> options = StewardChart.podJvmOptions();
    String periodic = options.stream().filter(o -> o.startsWith(PERIODIC)).findFirst().orElse(null);
    assertThat(periodic).as("the chart's JVM options collect periodically at rest").isNotNull();
    assertThat(Long.parseLong(periodic.substring(PERIODIC.length()))).as("ms").isBetween(1_000L, 300_000L);

    // The chart's options, with a period short enough for a unit test.
    SourceFileJvm.Result jvm = SourceFileJvm.run(Path.of("target", "chart-jvm-memory", "Burst.java"), BURST,
        options.stream().map(o -> o.startsWith(PERIODIC) ? PERIODIC + 500 : o).toList());
    String output = jvm.output();

    assertThat(jvm.exitCode()).as(output).isZero();
    Matcher figures = COMMITTED.matcher(output);
    assertThat(figures.find()).as(output).isTrue();
    long burst = Long.parseLong(figures.group(1));
    long atRest = Long.parseLong(figures.group(2));
    assertThat(burst).as(output).isGreaterThanOrEqualTo(150);
    assertThat(atRest).as(output).isLessThan(burst / 3);
  }

  /** Grows the heap with a burst of live objects, lets them go, and waits at rest. */
  private static final String BURST = """
      import java.lang.management.ManagementFactory;
      import java.util.ArrayList;
      import java.util.List;

      class Burst {
        public static void main(String[] args) throws InterruptedException {
          List<byte[]> live = new ArrayList<>();
          for (int i = 0; i < 150 * 16; i++) {
            live.add(new byte[64 * 1024]); // smaller than half a region: not humongous
          }
          long burst = committedMiB();
          live.clear();
          long atRest = burst;
          for (long deadline = System.nanoTime() + 20_000_000_000L; System.nanoTime() < deadline && atRest >= burst / 3; ) {
            Thread.sleep(100);
            atRest = committedMiB();
          }
          System.out.println("burst " + burst + " MiB committed, at rest " + atRest + " MiB committed");
        }

        static long committedMiB() {
          return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted() / (1024 * 1024);
        }
      }
      """;
}
