package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ProcStatsTest {

  @Test
  void threadsAreGroupedByTheNamesTheJvmGivesThem() {
    assertThat(ProcStats.threadGroup("C1 CompilerThre")).isEqualTo(ProcStats.COMPILER);
    assertThat(ProcStats.threadGroup("GC Thread#1")).isEqualTo(ProcStats.COLLECTOR);
    assertThat(ProcStats.threadGroup("G1 Conc#0")).isEqualTo(ProcStats.COLLECTOR);
    assertThat(ProcStats.threadGroup("java")).isEqualTo(ProcStats.MAIN);
    assertThat(ProcStats.threadGroup("OkHttp TaskRunn")).isEqualTo(ProcStats.HTTP);
    assertThat(ProcStats.threadGroup("VM Thread")).isEqualTo(ProcStats.OTHER_JVM);
    assertThat(ProcStats.threadGroup("Reference Handl")).isEqualTo(ProcStats.OTHER_JVM);
    assertThat(ProcStats.threadGroup("bucket-informer")).isEqualTo(ProcStats.APPLICATION);
  }

  /**
   * This JVM's own threads, as the benchmark reads an operator's: every group present, and a thread
   * that spun is found in its group. Fails if a thread's name were not read from its own stat file
   * or its ticks were misread.
   */
  @Test
  void aBusyThreadsTimeIsFoundInItsGroup() throws Exception {
    long pid = ProcessHandle.current().pid();
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch measured = new CountDownLatch(1);
    Thread spinner = new Thread(() -> {
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long x = 0;
      while (threads.getCurrentThreadCpuTime() < 200_000_000L) {
        x += System.nanoTime() % 7;
      }
      spun.countDown();
      try {
        measured.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (x == 42) {
        System.out.print("");
      }
    }, "OkHttp spinner");
    spinner.start();
    spun.await();
    Map<String, Double> groups = ProcStats.cpuSecondsByThreadGroup(pid);
    measured.countDown();
    spinner.join();
    assertThat(groups).containsOnlyKeys(ProcStats.THREAD_GROUPS);
    assertThat(groups.get(ProcStats.HTTP)).as("the spinning thread's CPU, s").isGreaterThan(0.15);
    assertThat(groups.get(ProcStats.MAIN) + groups.get(ProcStats.APPLICATION)).as("the test's own threads, s")
        .isPositive();
  }
}
