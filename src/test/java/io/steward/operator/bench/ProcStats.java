package io.steward.operator.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

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
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // Fields after the command name, which is in parentheses and may contain spaces.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
      long utime = Long.parseLong(fields[11]);
      long stime = Long.parseLong(fields[12]);
      return (utime + stime) / (double) TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
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
