package io.steward.operator.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A process's resident memory and CPU time from Linux's /proc, as `ps` and `top` see them. */
public final class ProcStats {
  private static final long TICKS_PER_SECOND = clockTicks();

  private ProcStats() {}

  /** VmRSS in bytes, or -1 when the process is gone. */
  static long rssBytes(long pid) {
    return statusBytes(pid, "VmRSS:");
  }

  /** VmHWM (the peak of VmRSS over the process' life) in bytes, or -1 when the process is gone. */
  static long peakRssBytes(long pid) {
    return statusBytes(pid, "VmHWM:");
  }

  /** The process's thread count now, or -1 when it is gone. */
  static long threads(long pid) {
    return statusNumber(pid, "Threads:");
  }

  private static long statusBytes(long pid, String field) {
    long kib = statusNumber(pid, field);
    return kib < 0 ? -1 : kib * 1024;
  }

  private static long statusNumber(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
      return -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** User plus system CPU time in seconds (utime + stime of /proc/<pid>/stat), or NaN when gone. */
  public static double cpuSeconds(long pid) {
    try {
      return ticksToSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** Where a JVM's CPU goes, by the kind of thread that spent it; see {@link #threadGroup}. */
  static final String COMPILER = "JIT compiler";
  static final String COLLECTOR = "garbage collector";
  static final String MAIN = "main (start-up)";
  static final String HTTP = "OkHttp";
  static final String OTHER_JVM = "other JVM threads";
  static final String APPLICATION = "Steward and client-java";
  static final String ENDED = "threads that ended";
  static final List<String> THREAD_GROUPS = List.of(COMPILER, COLLECTOR, MAIN, HTTP, APPLICATION, OTHER_JVM, ENDED);
  private static final Set<String> JVM_THREADS = Set.of("Service Thread", "Sweeper thread", "Monitor Deflati",
      "Signal Dispatch", "Reference Handl", "Finalizer", "Common-Cleaner", "Notification Th", "Attach Listener");

  /**
   * The group of a JVM thread by its Linux name (which the JVM sets from the thread's name, cut to 15
   * characters; the main thread keeps the launcher's name, {@code java}).
   */
  static String threadGroup(String comm) {
    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
      return COMPILER;
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
      return COLLECTOR;
    }
    if (comm.equals("java")) {
      return MAIN;
    }
    if (comm.startsWith("OkHttp")) {
      return HTTP;
    }
    if (comm.startsWith("VM ") || JVM_THREADS.contains(comm)) {
      return OTHER_JVM;
    }
    return APPLICATION;
  }

  /**
   * A process's CPU seconds by thread group ({@link #THREAD_GROUPS}), from each live thread's
   * /proc/&lt;pid&gt;/task/&lt;tid&gt;/stat; what threads that have ended used is the process's total less
   * the live ones'. Empty when the process is gone.
   */
  static Map<String, Double> cpuSecondsByThreadGroup(long pid) {
    Map<String, Double> groups = new LinkedHashMap<>();
    THREAD_GROUPS.forEach(group -> groups.put(group, 0.0));
    double total = cpuSeconds(pid);
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          groups.merge(threadGroup(comm), ticksToSeconds(stat), Double::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended while listed: its time is in ENDED below
        }
      }
    } catch (IOException | RuntimeException e) {
      return Map.of();
    }
    double live = groups.values().stream().mapToDouble(Double::doubleValue).sum();
    groups.put(ENDED, Math.max(0, total - live));
    return groups;
  }

  /** utime + stime of a /proc stat line, in seconds. */
  private static double ticksToSeconds(String stat) {
    // Fields after the command name, which is in parentheses and may contain spaces.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / (double) TICKS_PER_SECOND;
  }

  /**
   * CPU seconds all processors have spent busy since boot (user, nice, system, irq, softirq and steal
   * of /proc/stat's first line), or NaN when unreadable.
   */
  static double machineBusySeconds() {
    try {
      String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int field : new int[] {1, 2, 3, 6, 7, 8}) {
        busy += Long.parseLong(fields[field]);
      }
      return busy / (double) TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException e) {
      return "?";
    }
  }

  static long memTotalBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return -1;
  }

  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return "?";
  }

  /** Runs a short command and returns its output, or null; bounded to 60 s. */
  static String run(String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return null;
      }
      return process.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static long clockTicks() {
    String out = run("getconf", "CLK_TCK");
    try {
      return out == null ? 100 : Long.parseLong(out.trim());
    } catch (NumberFormatException e) {
      return 100;
    }
  }
}
