package io.steward.operator.bench;

import io.steward.operator.support.Charts.Series;
import io.steward.operator.support.Charts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The benchmark's pictures, beside results.md: convergence over time per contender and N, the
 * spec-change latency distributions, and memory over N. Only what the run measured is drawn.
 */
final class BenchCharts {
  private BenchCharts() {}

  /** Draws the pictures into {@code dir}; returns their file names with a caption each. */
  static Map<String, String> write(BenchResults r, Path dir) {
    Map<String, String> drawn = new LinkedHashMap<>();
    Map<Integer, List<BenchResults.Curve>> byN = new TreeMap<>();
    r.curves.forEach(c -> byN.computeIfAbsent(c.n(), n -> new ArrayList<>()).add(c));
    byN.forEach((n, curves) -> {
      List<Series> series = new ArrayList<>();
      curves.forEach(c -> series.add(Series.of(c.contender() + " #" + c.repeat(), c.points())));
      // The API server's pace for the same writes (the paired ceiling runs), as a reference line.
      List<Double> paces = curves.stream().map(BenchResults.Curve::ceilingWebAppsPerSecond)
          .filter(p -> p > 0 && Double.isFinite(p)).sorted().toList();
      if (!paces.isEmpty()) {
        double pace = Figure.percentile(paces, 50);
        series.add(new Series("ceiling pace, " + Figure.format(pace) + " WebApps/s",
            List.of(new double[] {0, 0}, new double[] {n / pace, n}), true));
      }
      String file = "convergence-n" + n + ".png";
      Charts.lines(dir.resolve(file), "Convergence of " + n + " WebApps (from the first create; a backlog from readiness)",
          "seconds", "WebApps converged", series, false);
      drawn.put(file, "convergence over time, N = " + n + ", per contender and repeat, with the ceiling's pace");
    });

    if (r.latency != null) {
      BenchResults.Latency l = r.latency;
      List<Series> series = new ArrayList<>();
      addDistribution(series, "idle", l.idleMillis());
      addDistribution(series, "while " + l.loadWebApps() + " others converge", l.loadedMillis());
      addDistribution(series, "during a restarted operator's first pass", l.restartMillis());
      if (!series.isEmpty()) {
        Charts.lines(dir.resolve("latency.png"), "Spec change → Deployment updated: cumulative distribution",
            "milliseconds (log scale)", "share of changes", series, true);
        drawn.put("latency.png", "spec-change latency distributions (idle, under load, after a restart)");
      }
    }

    if (r.contenders != null && !r.contenders.goCeiling().isEmpty()) {
      List<Series> series = new ArrayList<>();
      series.add(Series.of("client-go writer (Go ceiling)", r.contenders.goCeiling().stream()
          .map(g -> new double[] {g.concurrency(), g.webAppsPerSecond().median()}).toList()));
      List<double[]> java = r.ceiling.stream().filter(c -> !c.withEvents() && c.storedWebApps() == 0)
          .map(c -> new double[] {c.concurrency(), c.webAppsPerSecond().median()}).toList();
      if (!java.isEmpty()) {
        series.add(Series.of("client-java (Java ceiling)", java));
      }
      Charts.lines(dir.resolve("ceilings.png"), "Steward's writes per WebApp as fast as the API server takes them",
          "client concurrency", "WebApps/s", series, false);
      drawn.put("ceilings.png", "the Go and Java ceilings over client concurrency");
    }

    Map<String, List<double[]>> memory = new LinkedHashMap<>();
    for (BenchResults.Memory m : r.memory) {
      if (m.n() == 0) {
        continue;
      }
      String jvm = m.jvm().equals("chart") ? "" : " (JVM: " + m.jvm() + ")";
      point(memory, "RSS after convergence" + jvm, m.n(), m.rssMiB());
      point(memory, "live heap after a full GC" + jvm, m.n(), m.liveHeapMiB());
    }
    if (!memory.isEmpty()) {
      List<Series> series = new ArrayList<>();
      memory.forEach((name, points) -> series.add(Series.of(name, points)));
      Charts.lines(dir.resolve("memory.png"), "Operator memory over N (median of the repeats)", "WebApps",
          "MiB", series, false);
      drawn.put("memory.png", "RSS and live heap over N");
    }
    return drawn;
  }

  private static void addDistribution(List<Series> series, String name, Figure millis) {
    if (millis == null) {
      return;
    }
    List<Double> sorted = millis.values().stream().filter(v -> v > 0).sorted().toList();
    if (sorted.isEmpty()) {
      return;
    }
    List<double[]> points = new ArrayList<>();
    for (int i = 0; i < sorted.size(); i++) {
      points.add(new double[] {sorted.get(i), (i + 1) / (double) sorted.size()});
    }
    series.add(Series.of(name + " (" + sorted.size() + ")", points));
  }

  private static void point(Map<String, List<double[]>> series, String name, int n, Figure figure) {
    if (figure != null && figure.repeats() > 0 && Double.isFinite(figure.median())) {
      series.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {n, figure.median()});
    }
  }
}
