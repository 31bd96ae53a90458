package io.steward.operator.bench;

import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** results.json (every value, every repeat), results.md (one table, median and spread) and the pictures it links. */
final class ResultsWriter {
  static final String COMMAND = "mvn verify -Pbench";

  private ResultsWriter() {}

  static void write(BenchResults results, Path directory) {
    try {
      Files.createDirectories(directory);
      Files.writeString(directory.resolve("results.json"), new GsonBuilder().setPrettyPrinting()
          .serializeSpecialFloatingPointValues().create().toJson(results) + "\n");
      Map<String, String> pictures = BenchCharts.write(results, directory);
      StringBuilder md = new StringBuilder(markdown(results));
      if (!pictures.isEmpty()) {
        md.append("\nPictures:\n\n");
        pictures.forEach((file, caption) -> md.append("![").append(caption).append("](").append(file).append(")\n\n"));
      }
      Files.writeString(directory.resolve("results.md"), md.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String markdown(BenchResults r) {
    StringBuilder md = new StringBuilder();
    md.append("# Steward benchmark (").append(r.settings.get("mode")).append(")\n\n");
    md.append("- Date: ").append(r.date).append("; run took ").append(Figure.format(r.totalSeconds)).append(" s\n");
    md.append("- Machine: ").append(r.machine.get("nproc")).append(" CPUs (").append(r.machine.get("cpu"))
        .append("), ").append(r.machine.get("memoryGiB")).append(" GiB, ").append(r.machine.get("os"))
        .append("; load average ").append(r.machine.get("loadAverageAtStart")).append(" at start, ")
        .append(r.machine.get("loadAverageAtEnd")).append(" at end\n");
    md.append("- Java: ").append(r.machine.get("java")).append("; Kubernetes ").append(r.machine.get("kubernetes"))
        .append("\n");
    md.append("- Operator: in its own JVM as ").append(r.settings.get("operatorLayout")).append("; the chart's JVM options `")
        .append(r.settings.get("operatorJvmOptions")).append("`; properties ").append(r.settings.get("operatorProperties"))
        .append("\n");
    md.append("- Figures: median (min–max) over the repeats shown; command: `").append(COMMAND).append("`\n\n");

    // Sections 1-8; with -Dsteward.bench.only=scaling there are none, with =latency only section 5.
    StringBuilder table = new StringBuilder();
    for (BenchResults.Ceiling c : r.ceiling) {
      row(table, "1", "ceiling, " + c.concurrency() + " client threads" + (c.withEvents()
          ? ", plus one Event per WebApp" : "") + (c.storedWebApps() > 0
          ? ", with " + c.storedWebApps() + " converged WebApps and their objects stored" : "") + (c.failedRequests() > 0
          ? " (" + c.failedRequests() + " failed)" : ""), c.webApps(), c.objectsPerSecond().repeats(),
          c.objectsPerSecond().text() + " = " + c.webAppsPerSecond().text(), "");
    }
    for (BenchResults.Convergence c : r.convergence) {
      String what = c.mode().equals("backlog") ? "convergence, backlog (from readiness and leadership)"
          : c.mode().equals("create-at-once") ? "convergence, created at once"
          : "convergence, created at once (JVM: " + c.mode().substring(c.mode().indexOf(", ") + 2) + ")";
      row(table, "2", what + (c.timedOut() > 0 ? " (" + c.timedOut() + " timed out)" : ""), c.n(),
          c.seconds().repeats(), c.seconds().text() + "; " + c.webAppsPerSecond().text() + "; **"
              + c.ratioToCeiling().text() + " × ceiling**",
          c.n() == 1000 && c.mode().equals("create-at-once") ? "≥ 0.7× ceiling" : "");
    }
    List<BenchResults.Convergence> atOnce = r.convergence.stream().filter(c -> c.mode().equals("create-at-once")
        && c.seconds().repeats() > 0).toList();
    // (the comparison-JVM row is not part of the growth series)
    if (atOnce.size() > 1) {
      StringBuilder growth = new StringBuilder();
      for (BenchResults.Convergence c : atOnce) {
        growth.append(growth.length() == 0 ? "" : ", ").append("N=").append(c.n()).append(": ")
            .append(Figure.format(1000 * c.seconds().median() / c.n())).append(" s");
      }
      BenchResults.Convergence largest = atOnce.get(atOnce.size() - 1);
      row(table, "2", "growth with N: convergence time per 1000 WebApps (constant = linear)", largest.n(),
          largest.seconds().repeats(), growth.toString(), "linear or better");
    }
    for (BenchResults.Requests q : r.requests) {
      row(table, "3", "requests per WebApp (" + q.mode() + "): writes to Deployments, Services, WebApp status",
          q.n(), q.ownedWritesPerWebApp().repeats(), q.ownedWritesPerWebApp().text(), "3");
      row(table, "3", "requests per WebApp (" + q.mode() + "): direct GETs (cache bypass)", q.n(),
          q.getsPerWebApp().repeats(), q.getsPerWebApp().text(), "0");
      row(table, "3", "per WebApp (" + q.mode() + "): reconciles; operator CPU", q.n(),
          q.reconcilesPerWebApp().repeats(), q.reconcilesPerWebApp().text() + "; "
              + q.operatorCpuMillisPerWebApp().text(), "");
      row(table, "3", "requests per WebApp (" + q.mode() + "): Events created; per run: 409 conflicts, lists", q.n(),
          q.eventsPerWebApp().repeats(), q.eventsPerWebApp().text() + "; " + q.conflicts().text() + "; "
              + q.lists().text(), "");
    }
    if (r.steadyState != null) {
      for (BenchResults.Pass p : r.steadyState.passes()) {
        row(table, "4", "steady state: " + p.what(), p.webApps(), 1, p.ownedWrites() + " writes to owned objects/status, "
            + p.gets() + " GETs, " + p.events() + " events, " + p.lists() + " lists, " + p.leases() + " Lease writes; "
            + p.reconciles()
            + " reconciles in " + Figure.format(p.seconds()) + " s, operator CPU " + Figure.format(p.cpuSeconds())
            + " s", "0 writes");
      }
      row(table, "4", "steady state: idle operator CPU between the passes (Lease renewals; not polled)",
          r.steadyState.n(), 1,
          Figure.format(r.steadyState.idleCpuPercent()) + " % of one core", "");
    }
    if (r.latency != null) {
      BenchResults.Latency l = r.latency;
      row(table, "5", "latency spec change → Deployment updated, idle", l.changes(), l.idleMillis().repeats(),
          "p50 " + Figure.format(l.idleP50()) + " ms, p99 " + Figure.format(l.idleP99()) + " ms", "");
      row(table, "5", "latency while " + l.loadWebApps() + " others converge (" + l.changesSentWhileLoadConverging()
              + " of the changes sent before they had; load took " + Figure.format(l.loadSeconds()) + " s)",
          l.changes(), l.loadedMillis().repeats(),
          "p50 " + Figure.format(l.loadedP50()) + " ms, p99 " + Figure.format(l.loadedP99()) + " ms", "");
      row(table, "5", "latency while a restarted operator's first pass converges " + l.loadWebApps()
              + " created while it was down (" + l.changesSentDuringRestartPass() + " of the changes sent before "
              + "they had; " + Figure.format(l.restartPassSeconds()) + " s from leadership)",
          l.changes(), l.restartMillis().repeats(),
          "p50 " + Figure.format(l.restartP50()) + " ms, p99 " + Figure.format(l.restartP99()) + " ms"
              + (l.lost() > 0 ? "; " + l.lost() + " changes not seen" : ""), "");
    }
    for (BenchResults.Memory m : r.memory) {
      if (m.n() == 0) {
        row(table, "6", "memory, idle operator: live heap; RSS after a full GC", 0, m.liveHeapMiB().repeats(),
            m.liveHeapMiB().text() + "; " + m.rssAfterGcMiB().text(), "");
        continue;
      }
      String jvm = m.jvm().equals("chart") ? "" : " (JVM: " + m.jvm() + ")";
      row(table, "6", "memory after convergence: RSS; used heap" + jvm, m.n(), m.rssMiB().repeats(),
          m.rssMiB().text() + "; " + m.heapUsedMiB().text(), m.n() >= 5000 ? "RSS ≤ 300 MB" : "");
      row(table, "6", "memory after a full GC: live heap; RSS; live heap per WebApp" + jvm, m.n(),
          m.liveHeapMiB().repeats(),
          m.liveHeapMiB().text() + "; " + m.rssAfterGcMiB().text() + "; " + m.liveHeapBytesPerWebApp().text(), "");
      row(table, "6", "memory: peak RSS (VmHWM) after convergence; idle RSS after a full GC before it; threads" + jvm,
          m.n(), m.peakRssMiB().repeats(),
          m.peakRssMiB().text() + "; " + m.idleRssAfterGcMiB().text() + "; " + m.threads().text(), "");
      if (m.rssAtRestMiB().repeats() > 0) {
        row(table, "6", "memory: RSS at rest after convergence (steward.bench.rest-seconds later), no forced GC" + jvm,
            m.n(), m.rssAtRestMiB().repeats(), m.rssAtRestMiB().text(), "");
      }
    }
    for (BenchResults.Startup s : r.startup) {
      row(table, "7", "start-up: JVM start to readiness (caches synced); JVM's own uptime at 'Started'",
          s.existingWebApps(), s.secondsToReady().repeats(),
          s.secondsToReady().text() + "; " + s.jvmReportedSeconds().text(), s.existingWebApps() == 0 ? "≤ 3 s" : "");
    }
    for (BenchResults.StartupVariant v : r.startupVariants) {
      row(table, "7", "start-up with 0 WebApps, " + v.name() + (v.extraJvmOptions().isEmpty() ? "" : " (`"
          + v.extraJvmOptions() + "`)") + ": to readiness; CPU to readiness; idle RSS after a full GC", 0,
          v.secondsToReady().repeats(), v.secondsToReady().text() + "; " + v.cpuSecondsToReady().text() + "; "
          + v.idleRssAfterGcMiB().text(), "≤ 3 s");
    }
    if (r.contenders != null) {
      contenderRows(table, r.contenders);
    }
    if (table.length() > 0) {
      md.append("| # | measure | N | repeats | result | goal |\n|---|---|---|---|---|---|\n").append(table);
    }
    if (r.scaling != null) {
      scalingTables(md, r.scaling);
    }
    if (!r.controlPlane.isEmpty()) {
      md.append("\nControl plane at the end: ").append(r.controlPlane).append("\n");
    }
    if (!r.notes.isEmpty()) {
      md.append("\nNotes:\n");
      r.notes.forEach(n -> md.append("- ").append(n).append("\n"));
    }
    List<String> details = new ArrayList<>();
    for (BenchResults.Requests q : r.requests) {
      details.add("- " + q.mode() + " N=" + q.n() + " (last run): " + q.lastRunByVerbAndResource());
    }
    if (!details.isEmpty()) {
      md.append("\nRequests by Steward's user agent per run, by verb, resource and non-2xx code:\n");
      details.forEach(d -> md.append(d).append("\n"));
    }
    return md.toString();
  }

  /** Section 8: the Go ceiling's sweep, each contender's convergence and Steward's ratios (issue 17). */
  private static void contenderRows(StringBuilder md, BenchResults.Contenders c) {
    for (BenchResults.GoCeilingRun g : c.goCeiling()) {
      row(md, "8", "Go ceiling: client-go writer (protobuf, no client-side limiter), " + g.concurrency()
          + " goroutines: Steward's 3 writes per WebApp; writes counted; CPU per WebApp; writer peak RSS"
          + (g.failed() > 0 ? " (" + g.failed() + " failed)" : ""), g.webApps(), g.repeats(),
          g.webAppsPerSecond().text() + " = " + g.objectsPerSecond().text() + "; " + g.writesPerWebApp().text() + "; "
              + figures(g.cpuMillisPerWebApp()) + "; " + g.peakRssMiB().text(),
          g == c.best() ? "best" : "");
    }
    for (BenchResults.ContenderRun run : c.runs()) {
      String what = run.contender() + ", " + run.mode() + (run.timedOut() > 0 ? " (" + run.timedOut() + " timed out)" : "");
      row(md, "8", what + ": first converged → all; start (" + (run.mode().equals("backlog") ? "process start"
              : "first create") + ") → first converged", run.n(), run.repeats(), run.firstToAllSeconds().text() + "; "
              + run.webAppsPerSecond().text() + "; " + run.startToFirstConvergedSeconds().text(), "");
      String cpu = figures(run.cpuMillisPerWebApp());
      row(md, "8", what + ": CPU per WebApp (" + (run.mode().equals("backlog") ? "operator from its start" : "operator")
              + "); operator peak RSS; writes, GETs per WebApp; 409s", run.n(), run.repeats(), cpu + "; "
              + run.peakRssMiB().text() + "; " + run.writesPerWebApp().text() + ", " + run.getsPerWebApp().text() + "; "
              + run.conflicts().text(), "");
    }
    for (BenchResults.Ratios ratio : c.ratios()) {
      row(md, "8", "Steward, " + ratio.mode() + ": × Java ceiling (paired); × Go ceiling (best of the sweep); "
              + "× controller-runtime (first converged → all); operator CPU per WebApp × controller-runtime's",
          ratio.n(), ratio.repeats(),
          "**" + ratio.toJavaCeiling().text() + "; " + Figure.format(ratio.toGoCeiling()) + "; "
              + Figure.format(ratio.toControllerRuntime()) + "; " + Figure.format(ratio.operatorCpuToControllerRuntime())
              + "**", "");
    }
    row(md, "8", "the contenders' Deployment, Service and status against what Steward writes for the same WebApp",
        0, 1, c.shapeDifferences().isEmpty() ? "the same" : String.join("; ", c.shapeDifferences()), "the same");
  }

  /**
   * Section 9: each configuration converging N waiting WebApps (the replicas' cost per WebApp and each
   * replica's CPU, memory and cache), then the same replicas at rest.
   */
  private static void scalingTables(StringBuilder md, BenchResults.Scaling s) {
    md.append("\n## 9. Scaling: single leader against sharded replicas (issue 16)\n\n")
        .append("N WebApps waiting in a fresh namespace, then the replicas started together; per replica values ")
        .append("are listed replica by replica. CPU from each replica's start to the last WebApp converged, its ")
        .append("start-up included; in parentheses, per WebApp: from each replica's readiness, per replica: to its ")
        .append("readiness. Heap and RSS after a full GC once converged; peak RSS is the process's high-water mark. ")
        .append("Creating: kube-apiserver's CPU per WebApp while the benchmark created the WebApps, before the ")
        .append("replicas started (not in the total; with the labelling policy, its CEL runs then).\n\n")
        .append("| N | configuration | start → all converged | first converged → all | CPU ms per WebApp: replicas ")
        .append("(from readiness); kube-apiserver; etcd; total; creating | CPU s per replica (to readiness) | live heap MiB per replica | ")
        .append("RSS MiB per replica: after GC; peak; threads | buckets; WebApps cached per replica | per WebApp: reconciles; writes; 409s | ")
        .append("other processes' CPU, % of one core |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (BenchResults.ScalingRun run : s.runs()) {
      List<BenchResults.ScalingReplica> replicas = run.perReplica();
      Map<String, Double> cpu = run.cpuMillisPerWebApp();
      md.append("| ").append(run.n()).append(" | ").append(configuration(run))
          .append(run.timedOut() ? " (timed out)" : "").append(" | ")
          .append(Figure.format(run.startToAllSeconds())).append(" s, ").append(Figure.format(run.webAppsPerSecond()))
          .append(" WebApps/s | ").append(Figure.format(run.firstToAllSeconds())).append(" s, ")
          .append(Figure.format(run.firstToAllWebAppsPerSecond())).append(" WebApps/s | ")
          .append(Figure.format(cpu.getOrDefault("replicas", Double.NaN))).append(" (")
          .append(Figure.format(cpu.getOrDefault(Scaling.REPLICAS_FROM_READINESS, Double.NaN))).append("); ")
          .append(Figure.format(cpu.getOrDefault("kube-apiserver", Double.NaN))).append("; ")
          .append(Figure.format(cpu.getOrDefault("etcd", Double.NaN))).append("; **")
          .append(Figure.format(cpu.getOrDefault("total", Double.NaN))).append("**; ")
          .append(Figure.format(cpu.getOrDefault(Scaling.API_SERVER_WHILE_CREATED, Double.NaN))).append(" | ")
          .append(each(replicas, p -> Figure.format(p.cpuSeconds()) + " (" + Figure.format(p.cpuSecondsAtReady()) + ")"))
          .append(" | ").append(each(replicas, p -> Figure.format(p.liveHeapMiB()))).append(" | ")
          .append(each(replicas, p -> Figure.format(p.rssAfterGcMiB()))).append("; ")
          .append(each(replicas, p -> Figure.format(p.peakRssMiB()))).append("; ")
          .append(each(replicas, p -> Long.toString(p.threads()))).append(" | ")
          .append(each(replicas, p -> Integer.toString(p.buckets()))).append("; ")
          .append(each(replicas, p -> Integer.toString(p.cachedWebApps()))).append(" | ")
          .append(Figure.format(run.reconcilesPerWebApp())).append("; ").append(Figure.format(run.writesPerWebApp()))
          .append("; ").append(run.conflicts()).append(" | ").append(Figure.format(run.othersCpuPercent())).append(" |\n");
    }
    md.append("\nAt rest, ").append(s.restSeconds()).append(" s after convergence (requests from the audit log):\n\n")
        .append("| N | configuration | CPU per replica, % of one core | Lease writes/s, all replicas | ")
        .append("requests/s, all replicas | writes to WebApps, Deployments, Services | kube-apiserver; etcd; other processes' CPU, % |\n")
        .append("|---|---|---|---|---|---|---|\n");
    for (BenchResults.ScalingRun run : s.runs()) {
      BenchResults.ScalingAtRest rest = run.atRest();
      md.append("| ").append(run.n()).append(" | ").append(configuration(run)).append(" | ")
          .append(each(run.perReplica(), p -> Figure.format(p.idleCpuPercent()))).append(" | ")
          .append(Figure.format(rest.leaseWritesPerSecond())).append(" | ")
          .append(Figure.format(rest.requestsPerSecond())).append(" | ").append(rest.objectWrites()).append(" | ")
          .append(Figure.format(rest.apiServerCpuPercent())).append("; ").append(Figure.format(rest.etcdCpuPercent()))
          .append("; ").append(Figure.format(rest.othersCpuPercent())).append(" |\n");
    }
    md.append("\nWhere the replicas' CPU went, in seconds summed over the replicas, from their start to the last ")
        .append("WebApp converged, by the kind of thread that spent it (Linux's per-thread accounting; the main ")
        .append("thread runs the start-up; threads that ended are mostly start-up's too):\n\n")
        .append(threadGroupHeader(" | all"));
    for (BenchResults.ScalingRun run : s.runs()) {
      md.append("| ").append(run.n()).append(" | ").append(configuration(run)).append(" | ");
      for (String group : ProcStats.THREAD_GROUPS) {
        md.append(Figure.format(run.perReplica().stream()
            .mapToDouble(p -> ofGroup(p.cpuSecondsByThreadGroup(), group)).sum())).append(" | ");
      }
      md.append(Figure.format(run.perReplica().stream().mapToDouble(BenchResults.ScalingReplica::cpuSeconds).sum()))
          .append(" |\n");
    }
    md.append("\nThe same at rest, in % of one core per replica, listed replica by replica:\n\n")
        .append(threadGroupHeader(""));
    for (BenchResults.ScalingRun run : s.runs()) {
      md.append("| ").append(run.n()).append(" | ").append(configuration(run)).append(" | ");
      for (String group : ProcStats.THREAD_GROUPS) {
        md.append(each(run.perReplica(), p -> Figure.format(ofGroup(p.idleCpuPercentByThreadGroup(), group))))
            .append(" | ");
      }
      md.append("\n");
    }
    String left = s.runs().stream().filter(run -> run.storedBefore().getOrDefault("webapps", 0L) > 0
        || run.storedBefore().getOrDefault("deployments", 0L) > 0).map(run -> "N=" + run.n() + " "
        + configuration(run) + ": " + run.storedBefore()).reduce((a, b) -> a + "; " + b).orElse("none");
    md.append("\nWebApps or Deployments stored before a run (left by earlier ones): ").append(left).append("\n");
  }

  /** A table's header with a column per thread group, then {@code extraColumns} (" | all", or ""). */
  private static String threadGroupHeader(String extraColumns) {
    int columns = ProcStats.THREAD_GROUPS.size() + (extraColumns.isEmpty() ? 0 : 1);
    return "| N | configuration | " + String.join(" | ", ProcStats.THREAD_GROUPS) + extraColumns + " |\n|---|---|"
        + "---|".repeat(columns) + "\n";
  }

  /** A replica's figure for one thread group; NaN when it has none (results written before the split). */
  private static double ofGroup(Map<String, Double> byGroup, String group) {
    return byGroup == null ? Double.NaN : byGroup.getOrDefault(group, Double.NaN);
  }

  private static String configuration(BenchResults.ScalingRun run) {
    return new ScalingMath.Configuration(run.mode(), run.replicas()).label();
  }

  private static String each(List<BenchResults.ScalingReplica> replicas,
      Function<BenchResults.ScalingReplica, String> value) {
    return String.join(" / ", replicas.stream().map(value).toList());
  }

  /** "etcd 2 ms, kube-apiserver 14 ms (13–15), ...". */
  private static String figures(Map<String, Figure> perProcess) {
    StringBuilder text = new StringBuilder();
    perProcess.forEach((process, figure) -> text.append(text.length() == 0 ? "" : ", ").append(process).append(" ")
        .append(figure.text()));
    return text.toString();
  }

  private static void row(StringBuilder md, String number, String measure, int n, int repeats, String result,
      String goal) {
    md.append("| ").append(number).append(" | ").append(measure).append(" | ").append(n).append(" | ")
        .append(repeats).append(" | ").append(result).append(" | ").append(goal).append(" |\n");
  }
}
