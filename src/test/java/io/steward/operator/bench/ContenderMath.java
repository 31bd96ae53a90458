package io.steward.operator.bench;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The pure part of the contender comparison (issue 17): the Go writer's result line, the span from
 * the first converged WebApp to the last, CPU per WebApp, the medians over repeats, and Steward's
 * three ratios (to the Java ceiling, to the Go ceiling, to controller-runtime).
 */
final class ContenderMath {
  static final String STEWARD = "steward";
  static final String CONTROLLER_RUNTIME = "controller-runtime";
  /** N more WebApps created at once for an operator that has just converged N: its code compiled, its caches warm. */
  static final String SECOND_BURST = "second-burst";

  private ContenderMath() {}

  /** The JSON line `contenders writer` prints last (see src/test/contenders/writer.go). */
  record WriterLine(int concurrency, int webApps, double seconds, int failed, double cpuSeconds, long maxRssBytes,
      String firstError) {
    double webAppsPerSecond() {
      return seconds > 0 ? webApps / seconds : Double.NaN;
    }
  }

  /** Parses the writer's output: its last non-blank line is the JSON result. */
  static WriterLine parseWriter(String stdout) {
    String last = stdout.strip().lines().filter(l -> !l.isBlank()).reduce((a, b) -> b)
        .orElseThrow(() -> new IllegalArgumentException("the writer printed nothing"));
    JsonObject o = JsonParser.parseString(last).getAsJsonObject();
    JsonElement error = o.get("firstError");
    return new WriterLine(o.get("concurrency").getAsInt(), o.get("webApps").getAsInt(), o.get("seconds").getAsDouble(),
        o.get("failed").getAsInt(), o.get("cpuSeconds").getAsDouble(), o.get("maxRssBytes").getAsLong(),
        error == null || error.isJsonNull() ? null : error.getAsString());
  }

  /**
   * From the first converged WebApp to the last, by their System.nanoTime() (0: not converged, left
   * out). {@code count} converged; the pace counts the count - 1 that converged after the first.
   */
  record Span(long first, long last, int count) {
    static Span of(List<Long> convergedAt) {
      List<Long> done = convergedAt.stream().filter(t -> t > 0).sorted().toList();
      return done.isEmpty() ? new Span(0, 0, 0) : new Span(done.get(0), done.get(done.size() - 1), done.size());
    }

    double seconds() {
      return count == 0 ? Double.NaN : (last - first) / 1e9;
    }

    double webAppsPerSecond() {
      return count < 2 || last == first ? Double.NaN : (count - 1) / seconds();
    }
  }

  /** Milliseconds of CPU per WebApp for each process, from CPU seconds before and after (NaN where unknown). */
  static Map<String, Double> cpuMillisPerWebApp(Map<String, Double> before, Map<String, Double> after, int webApps) {
    Map<String, Double> perWebApp = new LinkedHashMap<>();
    after.forEach((process, seconds) -> {
      double start = before.getOrDefault(process, 0.0);
      perWebApp.put(process, webApps == 0 ? Double.NaN : 1000 * (seconds - start) / webApps);
    });
    double total = perWebApp.values().stream().mapToDouble(Double::doubleValue).sum();
    perWebApp.put("total", total);
    return perWebApp;
  }

  /** One contender's convergence of N WebApps in one scenario, as measured once. */
  record Sample(String contender, String mode, int n, Span span, double startToFirstSeconds,
      Map<String, Double> cpuMillisPerWebApp, double peakRssBytes, RequestCounts requests, boolean timedOut) {}

  /** Medians over the samples of each contender, mode and N, in the order first seen. */
  static List<BenchResults.ContenderRun> summarize(List<Sample> samples) {
    Map<String, List<Sample>> groups = new LinkedHashMap<>();
    samples.forEach(s -> groups.computeIfAbsent(s.contender() + "/" + s.mode() + "/" + s.n(), k -> new ArrayList<>())
        .add(s));
    List<BenchResults.ContenderRun> runs = new ArrayList<>();
    for (List<Sample> group : groups.values()) {
      Sample first = group.get(0);
      int n = first.n();
      List<Sample> ok = group.stream().filter(s -> !s.timedOut()).toList();
      Map<String, Figure> cpu = new LinkedHashMap<>();
      new TreeMap<>(first.cpuMillisPerWebApp()).keySet().stream().sorted((a, b) -> a.equals("total") ? 1
          : b.equals("total") ? -1 : a.compareTo(b)).forEach(process -> cpu.put(process, Figure.of("ms",
          ok.stream().map(s -> s.cpuMillisPerWebApp().getOrDefault(process, Double.NaN)).toList())));
      runs.add(new BenchResults.ContenderRun(first.contender(), first.mode(), n, ok.size(),
          Figure.of("s", ok.stream().map(s -> s.span().seconds()).toList()),
          Figure.of("WebApps/s", ok.stream().map(s -> s.span().webAppsPerSecond()).toList()),
          Figure.of("s", ok.stream().map(Sample::startToFirstSeconds).toList()), cpu,
          Figure.of("MiB", ok.stream().map(s -> s.peakRssBytes() / (1024.0 * 1024)).toList()),
          Figure.of("per WebApp", group.stream().map(s -> s.requests().ownedWritesPer(n)).toList()),
          Figure.of("per WebApp", group.stream().map(s -> s.requests().getsPer(n)).toList()),
          Figure.of("", group.stream().map(s -> s.requests().conflicts()).toList()),
          group.size() - ok.size()));
    }
    return runs;
  }

  /** One run of the Go writer as measured: its line, and what the audit log and /proc said. */
  record WriterRun(WriterLine line, double writesPerWebApp, Map<String, Double> cpuMillisPerWebApp) {}

  /** The writer's runs, by concurrency in the order first run, each over its repeats. */
  static List<BenchResults.GoCeilingRun> sweep(List<WriterRun> writerRuns) {
    Map<Integer, List<WriterRun>> byConcurrency = new LinkedHashMap<>();
    writerRuns.forEach(r -> byConcurrency.computeIfAbsent(r.line().concurrency(), c -> new ArrayList<>()).add(r));
    List<BenchResults.GoCeilingRun> sweep = new ArrayList<>();
    byConcurrency.forEach((concurrency, runs) -> {
      Map<String, Figure> cpu = new LinkedHashMap<>();
      runs.get(0).cpuMillisPerWebApp().keySet().forEach(process -> cpu.put(process, Figure.of("ms",
          runs.stream().map(r -> r.cpuMillisPerWebApp().getOrDefault(process, Double.NaN)).toList())));
      sweep.add(new BenchResults.GoCeilingRun(concurrency, runs.get(0).line().webApps(), runs.size(),
          Figure.of("WebApps/s", runs.stream().map(r -> r.line().webAppsPerSecond()).toList()),
          Figure.of("objects/s", runs.stream().map(r -> 3 * r.line().webAppsPerSecond()).toList()),
          runs.stream().mapToInt(r -> r.line().failed()).sum(),
          Figure.of("per WebApp", runs.stream().map(WriterRun::writesPerWebApp).toList()), cpu,
          Figure.of("MiB", runs.stream().map(r -> r.line().maxRssBytes() / (1024.0 * 1024)).toList())));
    });
    return sweep;
  }

  /** The Go ceiling's best concurrency: the sweep's highest median WebApps/s among those without failures. */
  static BenchResults.GoCeilingRun best(List<BenchResults.GoCeilingRun> sweep) {
    return sweep.stream().filter(r -> r.failed() == 0 && Double.isFinite(r.webAppsPerSecond().median()))
        .max(java.util.Comparator.comparingDouble(r -> r.webAppsPerSecond().median())).orElse(null);
  }

  /**
   * Steward's three ratios per scenario in which it ran: to the paired Java ceiling (its own
   * convergence row's ratio, WebApps/s as the rest of the benchmark counts it), to the best Go ceiling
   * (the same WebApps/s over the Go writer's best), and to controller-runtime (both counted from their
   * first converged WebApp to the last, same mode and N); and its operator's CPU per WebApp over
   * controller-runtime's (medians).
   */
  static List<BenchResults.Ratios> ratios(List<BenchResults.ContenderRun> runs, List<BenchResults.Convergence> steward,
      BenchResults.GoCeilingRun goBest) {
    List<BenchResults.Ratios> ratios = new ArrayList<>();
    for (BenchResults.ContenderRun cr : runs) {
      if (!cr.contender().equals(CONTROLLER_RUNTIME)) {
        continue;
      }
      BenchResults.ContenderRun own = runs.stream().filter(r -> r.contender().equals(STEWARD)
          && r.mode().equals(cr.mode()) && r.n() == cr.n()).findFirst().orElse(null);
      BenchResults.Convergence convergence = steward.stream().filter(c -> c.mode().equals(cr.mode())
          && c.n() == cr.n()).findFirst().orElse(null);
      Figure toJava = convergence == null ? Figure.of("", List.of()) : convergence.ratioToCeiling();
      double toGo = convergence == null || goBest == null ? Double.NaN
          : convergence.webAppsPerSecond().median() / goBest.webAppsPerSecond().median();
      double toCr = own == null ? Double.NaN : own.webAppsPerSecond().median() / cr.webAppsPerSecond().median();
      double cpuToCr = own == null ? Double.NaN : operatorCpu(own) / operatorCpu(cr);
      int repeats = own == null ? 0 : Math.min(own.repeats(), cr.repeats());
      ratios.add(new BenchResults.Ratios(cr.mode(), cr.n(), repeats, toJava, Figure.round(toGo), Figure.round(toCr),
          Figure.round(cpuToCr)));
    }
    return ratios;
  }

  private static double operatorCpu(BenchResults.ContenderRun run) {
    Figure cpu = run.cpuMillisPerWebApp().get("operator");
    return cpu == null ? Double.NaN : cpu.median();
  }

  /**
   * Where {@code actual} (an object as the API server returns it) differs from {@code wanted} (what
   * Steward would send): every field {@code wanted} sets must be equal in {@code actual}, which may
   * hold more (the server's defaults). Empty objects and arrays in {@code wanted} (and objects of
   * nothing else) are unset: client-java's models start their lists empty, and the server drops them
   * or fills them in (a Service's clusterIPs).
   */
  static List<String> differences(String path, JsonElement wanted, JsonElement actual) {
    List<String> found = new ArrayList<>();
    if (vacuous(wanted)) {
      return found;
    }
    if (actual == null || actual.isJsonNull()) {
      found.add(path + ": missing, expected " + wanted);
      return found;
    }
    if (wanted.isJsonObject() && actual.isJsonObject()) {
      for (Map.Entry<String, JsonElement> e : wanted.getAsJsonObject().entrySet()) {
        found.addAll(differences(path + "." + e.getKey(), e.getValue(), actual.getAsJsonObject().get(e.getKey())));
      }
    } else if (wanted.isJsonArray() && actual.isJsonArray()) {
      if (wanted.getAsJsonArray().size() != actual.getAsJsonArray().size()) {
        found.add(path + ": " + actual.getAsJsonArray().size() + " items, expected " + wanted.getAsJsonArray().size());
      } else {
        for (int i = 0; i < wanted.getAsJsonArray().size(); i++) {
          found.addAll(differences(path + "[" + i + "]", wanted.getAsJsonArray().get(i), actual.getAsJsonArray().get(i)));
        }
      }
    } else if (!Objects.equals(wanted, actual)
        && !(wanted.isJsonPrimitive() && actual.isJsonPrimitive() && wanted.getAsJsonPrimitive().isNumber()
        && actual.getAsJsonPrimitive().isNumber()
        && wanted.getAsBigDecimal().compareTo(actual.getAsBigDecimal()) == 0)) {
      found.add(path + ": " + actual + ", expected " + wanted);
    }
    return found;
  }

  private static boolean vacuous(JsonElement e) {
    return e == null || e.isJsonNull() || (e.isJsonArray() && e.getAsJsonArray().isEmpty())
        || (e.isJsonObject() && e.getAsJsonObject().entrySet().stream().allMatch(x -> vacuous(x.getValue())));
  }
}
