package io.steward.operator.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one run measured; written as results.json (Gson) and results.md (see {@link ResultsWriter}). */
final class BenchResults {
  String date;
  Map<String, Object> machine = new LinkedHashMap<>();
  Map<String, Object> settings = new LinkedHashMap<>();
  List<Ceiling> ceiling = new ArrayList<>();
  List<Convergence> convergence = new ArrayList<>();
  List<Requests> requests = new ArrayList<>();
  SteadyState steadyState;
  Latency latency;
  List<Memory> memory = new ArrayList<>();
  List<Startup> startup = new ArrayList<>();
  List<StartupVariant> startupVariants = new ArrayList<>();
  Map<String, Object> controlPlane = new LinkedHashMap<>();
  /** Steward beside a Go ceiling and a controller-runtime operator (issue 17); null when they were skipped. */
  Contenders contenders;
  /** Single-leader and sharded mode side by side at each N (issue 16); null when skipped. */
  Scaling scaling;
  List<String> notes = new ArrayList<>();
  /** Every convergence run's curve, for the pictures ({@link BenchCharts}). */
  List<Curve> curves = new ArrayList<>();
  /** Every convergence run as measured, before the medians. */
  List<Map<String, Object>> runs = new ArrayList<>();
  double totalSeconds;

  /**
   * The API server's ceiling for Steward's writes at one client concurrency: 3 objects per WebApp,
   * or 4 {@code withEvents} (plus one Event per WebApp: what recording each creation would cost).
   * {@code storedWebApps}: converged WebApps whose objects the store already held (0, except for the
   * run after the largest convergence, which shows what a larger store itself costs).
   */
  record Ceiling(int concurrency, boolean withEvents, int storedWebApps, int webApps, Figure objectsPerSecond,
      Figure webAppsPerSecond, int failedRequests) {}

  /**
   * Convergence of N WebApps. {@code mode}: "create-at-once" (the operator runs; N WebApps are created
   * as fast as the server takes them; timed from the first create) or "backlog" (N exist before the
   * operator starts; timed from its readiness and leadership). {@code ratioToCeiling}: WebApps/s over
   * the WebApps/s of the ceiling run just before, per run.
   */
  record Convergence(String mode, int n, Figure seconds, Figure webAppsPerSecond, Figure ratioToCeiling,
      Figure createSeconds, Figure operatorCpuSeconds, int timedOut) {}

  /**
   * WebApps converged over time in one convergence run of {@code contender} (its mode and JVM):
   * (seconds, count) points, at most about 200, from the first create (a backlog: from readiness and
   * leadership). {@code ceilingWebAppsPerSecond}: the paired ceiling run's pace.
   */
  record Curve(String contender, int n, int repeat, double ceilingWebAppsPerSecond, List<double[]> points) {}

  /** Requests per WebApp by Steward's user agent over a convergence run, from the audit log. */
  record Requests(String mode, int n, Figure ownedWritesPerWebApp, Figure getsPerWebApp, Figure eventsPerWebApp,
      Figure conflicts, Figure lists, Figure reconcilesPerWebApp, Figure operatorCpuMillisPerWebApp,
      Map<String, Integer> lastRunByVerbAndResource) {}

  /** One pass over N converged WebApps without a change: what it wrote and what it cost. */
  record Pass(String what, int webApps, int reconciles, double seconds, double cpuSeconds, int ownedWrites,
      int gets, int events, int leases, int lists, Map<String, Integer> byVerbAndResource) {}

  record SteadyState(int n, String resyncPeriod, List<Pass> passes, double idleCpuPercent) {}

  /**
   * A spec change until the Deployment has it: idle; while {@code loadWebApps} others are created and
   * converge; and while a restarted operator's first pass converges that many created while it was down.
   */
  record Latency(int changes, Figure idleMillis, double idleP50, double idleP99, int loadWebApps,
      Figure loadedMillis, double loadedP50, double loadedP99, int changesSentWhileLoadConverging,
      double loadSeconds, Figure restartMillis, double restartP50, double restartP99,
      int changesSentDuringRestartPass, double restartPassSeconds, int lost) {}

  /**
   * {@code jvm}: "chart", or the options added to the chart's for a tuning comparison. Peak RSS and
   * threads are the operator's at the end of convergence; idle RSS is after a full GC before it; RSS at
   * rest is taken {@code steward.bench.rest-seconds} after convergence, before any forced GC.
   */
  record Memory(int n, String jvm, Figure rssMiB, Figure heapUsedMiB, Figure liveHeapMiB, Figure rssAfterGcMiB,
      Figure liveHeapBytesPerWebApp, Figure rssBytesPerWebApp, Figure peakRssMiB, Figure idleRssAfterGcMiB,
      Figure threads, Figure rssAtRestMiB) {}

  record Startup(int existingWebApps, Figure secondsToReady, Figure jvmReportedSeconds) {}

  /**
   * Start-up with 0 WebApps and other JVM options (added to the chart's), side by side;
   * {@code cpuSecondsToReady} is the process's CPU time from its start to readiness and the Lease taken.
   */
  record StartupVariant(String name, String extraJvmOptions, Figure secondsToReady, Figure jvmReportedSeconds,
      Figure cpuSecondsToReady, Figure idleRssAfterGcMiB, Figure idleLiveHeapMiB) {}

  /**
   * The contenders run in the same invocation: {@code goCeiling}, the client-go writer sending exactly
   * Steward's three objects per WebApp at each concurrency, and {@code best}, its fastest; {@code runs}:
   * Steward and the controller-runtime operator converging the same N in the same scenarios; {@code ratios}:
   * Steward's; {@code shapeDifferences}: where the contenders' objects differ from what Steward writes
   * (should be empty, else the comparison is not of like with like).
   */
  record Contenders(List<GoCeilingRun> goCeiling, GoCeilingRun best, List<ContenderRun> runs, List<Ratios> ratios,
      List<String> shapeDifferences) {}

  /**
   * The Go ceiling at one concurrency, over its repeats: {@code webApps} WebApps' writes from
   * {@code concurrency} goroutines; failed requests (all repeats); the writes the API server's audit
   * log counted per WebApp; CPU per WebApp of the writer (its own rusage), the API server and etcd
   * (/proc); the writer's peak RSS.
   */
  record GoCeilingRun(int concurrency, int webApps, int repeats, Figure webAppsPerSecond, Figure objectsPerSecond,
      int failed, Figure writesPerWebApp, Map<String, Figure> cpuMillisPerWebApp, Figure peakRssMiB) {}

  /**
   * One contender converging N WebApps in one scenario (create-at-once or backlog), median over its
   * repeats: seconds and WebApps/s from its first converged WebApp to the last; from its start (a
   * backlog: the process start; created at once: the first create) to the first converged; CPU per
   * WebApp of each process (the operator, kube-apiserver, etcd, total) from /proc; the operator's
   * peak RSS (VmHWM); writes to Deployments, Services and WebApp status, GETs and 409s per run from the audit log.
   */
  record ContenderRun(String contender, String mode, int n, int repeats, Figure firstToAllSeconds,
      Figure webAppsPerSecond, Figure startToFirstConvergedSeconds, Map<String, Figure> cpuMillisPerWebApp,
      Figure peakRssMiB, Figure writesPerWebApp, Figure getsPerWebApp, Figure conflicts, int timedOut) {}

  /** Steward's ratios in one scenario; see {@link ContenderMath#ratios}. */
  record Ratios(String mode, int n, int repeats, Figure toJavaCeiling, double toGoCeiling, double toControllerRuntime,
      double operatorCpuToControllerRuntime) {}

  /** The scaling section (the Scaling class): one run per N and configuration, in the order run. */
  record Scaling(int restSeconds, List<ScalingRun> runs) {}

  /**
   * N WebApps waiting in a fresh namespace, then {@code replicas} replicas in {@code mode} ("leader":
   * single-leader mode, the baseline; "sharded") started together: seconds from the first replica's
   * start to the last WebApp converged, and from the first converged WebApp to the last, with their
   * paces; CPU per WebApp in ms of the replicas together (from their start, so start-up counts),
   * kube-apiserver, etcd, and their total; reconciles per WebApp, writes to WebApps, their status,
   * Deployments and Services per WebApp and 409s, all replicas, and their requests by verb and resource;
   * the CPU other processes than those measured took meanwhile, % of one core (the machine may be
   * shared); each replica; at rest; WebApps, Deployments and Services the cluster stored before the run
   * (what earlier runs left).
   */
  record ScalingRun(int n, String mode, int replicas, boolean timedOut, double startToAllSeconds,
      double webAppsPerSecond, double firstToAllSeconds, double firstToAllWebAppsPerSecond,
      Map<String, Double> cpuMillisPerWebApp, double reconcilesPerWebApp, double writesPerWebApp, int conflicts,
      Map<String, Integer> requests, double othersCpuPercent, List<ScalingReplica> perReplica, ScalingAtRest atRest,
      Map<String, Long> storedBefore) {}

  /**
   * One replica: start to readiness; CPU seconds from its start to readiness and to the last WebApp
   * converged; the buckets it held and the WebApps it cached (steward_webapps) once the assignment was
   * balanced; live heap and RSS after a full GC, its peak RSS (VmHWM) before it and its threads; CPU at
   * rest, % of one core.
   */
  record ScalingReplica(String identity, double secondsToReady, double cpuSecondsAtReady, double cpuSeconds,
      int buckets, int cachedWebApps, double liveHeapMiB, double rssAfterGcMiB, double peakRssMiB, long threads,
      double idleCpuPercent, Map<String, Double> cpuSecondsByThreadGroup,
      Map<String, Double> idleCpuPercentByThreadGroup) {}

  /**
   * After convergence, {@code seconds} at rest: the replicas' Lease writes and all their requests per
   * second, their writes to WebApps, Deployments and Services (should be 0), from the audit log; the
   * API server's and etcd's CPU, and the other processes', % of one core.
   */
  record ScalingAtRest(double seconds, double leaseWritesPerSecond, double requestsPerSecond, int objectWrites,
      double apiServerCpuPercent, double etcdCpuPercent, double othersCpuPercent) {}
}
