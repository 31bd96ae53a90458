package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contender comparison's arithmetic, parsing and shape check, without a cluster. */
class ContenderMathTest {
  @TempDir
  Path dir;

  @Test
  void parsesTheWritersLastLine() {
    ContenderMath.WriterLine line = ContenderMath.parseWriter("""
        some log line
        {"concurrency":16,"webApps":500,"seconds":2.5,"failed":0,"cpuSeconds":0.75,"maxRssBytes":41943040}
        """);
    assertThat(line.concurrency()).isEqualTo(16);
    assertThat(line.webAppsPerSecond()).isEqualTo(200);
    assertThat(line.maxRssBytes()).isEqualTo(40L * 1024 * 1024);
    assertThat(line.firstError()).isNull();
    assertThat(ContenderMath.parseWriter("{\"concurrency\":8,\"webApps\":1,\"seconds\":1,\"failed\":1,"
        + "\"cpuSeconds\":0,\"maxRssBytes\":0,\"firstError\":\"409\"}").firstError()).isEqualTo("409");
    assertThatThrownBy(() -> ContenderMath.parseWriter("  \n")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void spanRunsFromTheFirstConvergedToTheLastAndLeavesOutTheUnconverged() {
    ContenderMath.Span span = ContenderMath.Span.of(List.of(3_000_000_000L, 1_000_000_000L, 0L, 2_000_000_000L));
    assertThat(span.count()).isEqualTo(3);
    assertThat(span.seconds()).isEqualTo(2.0);
    assertThat(span.webAppsPerSecond()).isEqualTo(1.0); // two more after the first, in 2 s
    assertThat(ContenderMath.Span.of(List.of(5L)).webAppsPerSecond()).isNaN();
    assertThat(ContenderMath.Span.of(List.of()).seconds()).isNaN();
  }

  @Test
  void cpuPerWebAppPerProcessAndTotal() {
    Map<String, Double> perWebApp = ContenderMath.cpuMillisPerWebApp(Map.of("etcd", 10.0, "kube-apiserver", 20.0),
        new java.util.LinkedHashMap<>(Map.of("etcd", 11.0, "kube-apiserver", 24.0, "operator", 2.0)), 1000);
    assertThat(perWebApp.get("etcd")).isCloseTo(1.0, within(1e-9));
    assertThat(perWebApp.get("kube-apiserver")).isCloseTo(4.0, within(1e-9));
    assertThat(perWebApp.get("operator")).isCloseTo(2.0, within(1e-9)); // absent before: counted from 0
    assertThat(perWebApp.get("total")).isCloseTo(7.0, within(1e-9));
  }

  static ContenderMath.Sample sample(String contender, String mode, double seconds, double operatorMs, int writes) {
    int n = 101;
    ContenderMath.Span span = new ContenderMath.Span(0, (long) (seconds * 1e9), n);
    return new ContenderMath.Sample(contender, mode, n, span, 0.5, Map.of("operator", operatorMs, "total", operatorMs + 3),
        100 * 1024 * 1024, new RequestCounts(writes * n, 0, 0, 0, 0, 0, 3, writes * n + 3, Map.of()), false);
  }

  static ContenderMath.WriterRun writerRun(int concurrency, double perSecond, int failed) {
    return new ContenderMath.WriterRun(new ContenderMath.WriterLine(concurrency, 500, 500 / perSecond, failed, 0.25,
        30L << 20, null), 3, Map.of("writer", 0.5, "kube-apiserver", 4.0));
  }

  static BenchResults.GoCeilingRun go(int concurrency, double perSecond, int failed) {
    return ContenderMath.sweep(List.of(writerRun(concurrency, perSecond, failed))).get(0);
  }

  @Test
  void sweepGroupsTheWritersRepeatsByConcurrency() {
    List<BenchResults.GoCeilingRun> sweep = ContenderMath.sweep(List.of(writerRun(8, 300, 0), writerRun(16, 400, 0),
        writerRun(8, 200, 1), writerRun(16, 500, 0)));
    assertThat(sweep).extracting(BenchResults.GoCeilingRun::concurrency).containsExactly(8, 16);
    assertThat(sweep.get(0).repeats()).isEqualTo(2);
    assertThat(sweep.get(0).webAppsPerSecond().median()).isEqualTo(250);
    assertThat(sweep.get(0).objectsPerSecond().median()).isEqualTo(750);
    assertThat(sweep.get(0).failed()).isEqualTo(1);
    assertThat(sweep.get(0).peakRssMiB().median()).isEqualTo(30);
    assertThat(sweep.get(1).cpuMillisPerWebApp().get("kube-apiserver").median()).isEqualTo(4);
    assertThat(ContenderMath.best(sweep).concurrency()).as("8 had a failure").isEqualTo(16);
  }

  @Test
  void summarizesMediansAndComputesStewardsThreeRatios() {
    List<BenchResults.ContenderRun> runs = ContenderMath.summarize(List.of(
        sample("steward", "create-at-once", 1.0, 3, 3), sample("steward", "create-at-once", 2.0, 5, 3),
        sample("controller-runtime", "create-at-once", 0.5, 2, 4),
        sample("steward", "backlog", 1.0, 4, 3), sample("controller-runtime", "backlog", 1.0, 2, 3)));
    assertThat(runs).extracting(r -> r.contender() + " " + r.mode()).containsExactly("steward create-at-once",
        "controller-runtime create-at-once", "steward backlog", "controller-runtime backlog");
    BenchResults.ContenderRun steward = runs.get(0);
    assertThat(steward.repeats()).isEqualTo(2);
    assertThat(steward.webAppsPerSecond().median()).isEqualTo(75); // 100/s and 50/s
    assertThat(steward.cpuMillisPerWebApp().get("operator").median()).isEqualTo(4);
    assertThat(steward.cpuMillisPerWebApp().keySet()).containsExactly("operator", "total");
    assertThat(runs.get(1).writesPerWebApp().median()).isEqualTo(4);

    BenchResults.GoCeilingRun best = ContenderMath.best(List.of(go(8, 300, 0), go(16, 400, 0), go(32, 500, 2)));
    assertThat(best.concurrency()).as("a run with failures is not the best").isEqualTo(16);
    List<BenchResults.Convergence> convergence = List.of(new BenchResults.Convergence("create-at-once", 101,
        Figure.of("s", List.of(1.0)), Figure.of("WebApps/s", List.of(120.0)), Figure.of("", List.of(0.74, 0.70)),
        Figure.of("s", List.of()), Figure.of("s", List.of()), 0));
    List<BenchResults.Ratios> ratios = ContenderMath.ratios(runs, convergence, best);
    assertThat(ratios).hasSize(2);
    BenchResults.Ratios atOnce = ratios.get(0);
    assertThat(atOnce.toJavaCeiling().median()).isCloseTo(0.72, within(1e-9));
    assertThat(atOnce.toGoCeiling()).isEqualTo(0.3); // 120 / 400
    assertThat(atOnce.toControllerRuntime()).isEqualTo(0.375); // 75 / 200
    assertThat(atOnce.operatorCpuToControllerRuntime()).isEqualTo(2.0); // 4 / 2 ms
    BenchResults.Ratios backlog = ratios.get(1);
    assertThat(backlog.toJavaCeiling().repeats()).as("no Steward convergence row for it").isZero();
    assertThat(backlog.toGoCeiling()).isNaN();
    assertThat(backlog.toControllerRuntime()).isEqualTo(1.0);
    assertThat(backlog.operatorCpuToControllerRuntime()).isEqualTo(2.0);
    assertThat(backlog.repeats()).as("repeats both contenders have").isEqualTo(1);
    assertThat(atOnce.repeats()).isEqualTo(1);
    assertThat(ContenderMath.best(List.of(go(8, 300, 1)))).isNull();
  }

  @Test
  void shapeDifferencesIgnoreServerDefaultsAndEmptyCollectionsButNotChangedValues() {
    var wanted = JsonParser.parseString("""
        {"metadata":{"labels":{"a":"1"}},"spec":{"replicas":1,"resources":{"requests":{}},"env":[],
         "ports":[{"name":"http","port":8080}]}}""");
    var same = JsonParser.parseString("""
        {"metadata":{"labels":{"a":"1"},"uid":"x"},"spec":{"replicas":1.0,"strategy":{},
         "ports":[{"name":"http","port":8080,"protocol":"TCP"}]}}""");
    assertThat(ContenderMath.differences("d", wanted, same)).isEmpty();
    assertThat(ContenderMath.differences("d", JsonParser.parseString("{\"clusterIPs\":[]}"),
        JsonParser.parseString("{\"clusterIPs\":[\"10.0.0.7\"]}"))).as("an unset list the server fills in").isEmpty();
    var other = JsonParser.parseString("""
        {"metadata":{"labels":{}},"spec":{"replicas":2,"ports":[]}}""");
    assertThat(ContenderMath.differences("d", wanted, other)).containsExactly(
        "d.metadata.labels.a: missing, expected \"1\"", "d.spec.replicas: 2, expected 1",
        "d.spec.ports: 0 items, expected 1");
  }

  @Test
  void resultsShowTheContendersAndDrawTheCeilings() throws Exception {
    BenchResults r = BenchChartsTest.results();
    List<BenchResults.ContenderRun> runs = ContenderMath.summarize(List.of(sample("steward", "create-at-once", 1, 3, 3),
        sample("controller-runtime", "create-at-once", 0.5, 2, 4)));
    List<BenchResults.GoCeilingRun> sweep = List.of(go(8, 300, 0), go(16, 400, 0));
    r.contenders = new BenchResults.Contenders(sweep, sweep.get(1), runs,
        ContenderMath.ratios(runs, List.of(), sweep.get(1)), List.of());
    ResultsWriter.write(r, dir);
    String md = Files.readString(dir.resolve("results.md"));
    assertThat(md).contains("Go ceiling: client-go writer", "| 400 WebApps/s = 1200 objects/s", "| best |",
        "kube-apiserver 4 ms",
        "controller-runtime, create-at-once: first converged → all", "× controller-runtime",
        "operator CPU per WebApp × controller-runtime's", "| 101 | 1 | **—; —; 0.5; 1.5**",
        "against what Steward writes for the same WebApp | 0 | 1 | the same |", "ceilings.png");
    assertThat(dir.resolve("ceilings.png")).exists();
    assertThat(JsonParser.parseString(Files.readString(dir.resolve("results.json"))).getAsJsonObject()
        .getAsJsonObject("contenders").getAsJsonArray("goCeiling")).hasSize(2);
  }
}
