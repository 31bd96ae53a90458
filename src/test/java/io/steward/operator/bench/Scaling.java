package io.steward.operator.bench;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.bench.ScalingMath.Configuration;
import io.steward.operator.support.BucketLabelPolicy;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.AuditLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharding's scaling figures (issue 16), in the same run and on the same cluster as the rest of the
 * benchmark: for each N and configuration (single-leader mode with one replica as the baseline, then
 * sharded mode with each replica count), N WebApps waiting in a fresh namespace, then the replicas
 * started together, each the built jar in its own JVM as the image runs it with the chart's JVM
 * options and default lease timings, until every WebApp has converged; then the replicas at rest.
 * On two cores the API server bounds the pace, so what counts is what each replica costs and whether
 * the replicas together cost more than one.
 */
final class Scaling {
  private static final Logger log = LoggerFactory.getLogger(Scaling.class);
  private static final double MIB = 1024 * 1024;
  private static final Set<String> OBJECTS = Set.of("webapps", "deployments", "services");
  /** The replicas' CPU per WebApp from each one's readiness to convergence, beside their whole CPU ("replicas"). */
  static final String REPLICAS_FROM_READINESS = "replicasFromReadiness";
  /**
   * kube-apiserver's CPU per WebApp while the benchmark created them, before any replica started (not
   * in the total): what an admission policy costs on each create.
   */
  static final String API_SERVER_WHILE_CREATED = "kube-apiserverWhileCreated";
  private final StewardBenchmark bench;
  private final BenchSettings settings;
  private final int buckets;
  private final List<BenchResults.ScalingRun> runs = new ArrayList<>();

  Scaling(StewardBenchmark bench) {
    this.bench = bench;
    this.settings = bench.settings;
    this.buckets = Integer.parseInt(settings.operatorProperties().getOrDefault("steward.sharding.buckets",
        Integer.toString(new io.steward.operator.StewardProperties.Sharding().getBuckets())));
  }

  void run() throws Exception {
    for (int n : settings.scalingSizes()) {
      for (Configuration configuration : ScalingMath.configurations(settings.scalingReplicas(), settings.scalingLabelledReplicas())) {
        runs.add(converge(n, configuration));
      }
    }
  }

  BenchResults.Scaling summarize() {
    return new BenchResults.Scaling(settings.scalingRestSeconds(), runs);
  }

  private BenchResults.ScalingRun converge(int n, Configuration configuration) throws Exception {
    String ns = "scale-n" + n + "-" + configuration.tag();
    new CoreV1Api(bench.admin).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(ns))).execute();
    Map<String, Long> storedBefore = storedObjects();
    // The chart's policy, bound to the run's namespace only, before the WebApps are created.
    BucketLabelPolicy policy = configuration.labelledAtAdmission()
        ? BucketLabelPolicy.install(bench.admin, "n" + n + "-r" + configuration.replicas(), buckets, List.of(ns)) : null;
    List<String> names = StewardBenchmark.names("app-", n);
    double apiServerBeforeCreates = bench.controlPlaneCpu().getOrDefault("kube-apiserver", Double.NaN);
    bench.createWebApps(ns, names, true);
    long mark = bench.audit.size();
    Map<String, Double> cpuBefore = bench.controlPlaneCpu();
    double apiServerWhileCreated = 1000 * (cpuBefore.getOrDefault("kube-apiserver", Double.NaN) - apiServerBeforeCreates) / n;
    double[] machineBefore = machine(cpuBefore);
    List<Replica> replicas = new ArrayList<>();
    try {
      long start = System.nanoTime();
      for (int i = 0; i < configuration.replicas(); i++) {
        String identity = ns + "-" + i;
        // The Leases in the run's own namespace: a fresh start for each configuration, counted apart.
        replicas.add(new Replica(bench.spawnOperator(identity, Map.of(StewardBenchmark.SHARDING_ENABLED,
            Boolean.toString(configuration.sharded()), "steward.leader-election.lease-namespace", ns),
            bench.asImage(), List.of()), start));
      }
      boolean timedOut = !awaitConverged(ns, n, replicas, start);
      long done = timedOut ? System.nanoTime() : bench.observer.awaitConverged(ns, n, Duration.ofSeconds(1));
      Map<String, Double> cpuAfter = bench.controlPlaneCpu();
      replicas.forEach(r -> {
        r.cpuSeconds = ProcStats.cpuSeconds(r.process.pid());
        r.cpuByThreadGroup = ProcStats.cpuSecondsByThreadGroup(r.process.pid());
      });
      cpuAfter.put("replicas", replicas.stream().mapToDouble(r -> r.cpuSeconds).sum());
      double[] machineAfter = machine(cpuAfter);
      if (timedOut) {
        bench.results.notes.add("scaling N=" + n + ", " + configuration.label() + ": timed out with "
            + bench.observer.convergedIn(ns) + " converged");
      }
      awaitReady(replicas);
      bench.results.curves.add(new BenchResults.Curve("scaling: " + configuration.label() + " (from the start)", n, 1,
          Double.NaN, bench.curve(ns, names, start)));
      ContenderMath.Span span = bench.span(ns, names);
      Map<String, Integer> held = configuration.sharded() ? awaitBalanced(ns, replicas, configuration) : Map.of();
      replicas.forEach(r -> bench.settle(r.process));
      Set<String> agents = replicas.stream().map(r -> r.process.userAgent()).collect(Collectors.toSet());
      Observer.sleep(500); // the audit log is written when a request completes
      RequestCounts requests = RequestCounts.of(bench.audit.entriesAfter(mark, e -> agents.contains(e.userAgent())));
      for (Replica r : replicas) {
        r.buckets = held.getOrDefault(r.process.identity(), configuration.sharded() ? 0 : buckets);
        r.cached = (int) r.process.metricValues("steward_webapps").stream().mapToDouble(Double::doubleValue).sum();
        r.reconciles = bench.reconcileTotal(r.process);
        r.peakRss = ProcStats.peakRssBytes(r.process.pid());
        r.threads = ProcStats.threads(r.process.pid());
        r.memory = bench.memory(r.process, true);
      }
      BenchResults.ScalingAtRest atRest = atRest(replicas, agents);
      double seconds = ((timedOut ? System.nanoTime() : done) - start) / 1e9;
      Map<String, Double> cpuPerWebApp = ContenderMath.cpuMillisPerWebApp(cpuBefore, cpuAfter, n);
      // Without their start-up, which every replica pays once whatever N is.
      cpuPerWebApp.put(REPLICAS_FROM_READINESS, 1000 * replicas.stream()
          .mapToDouble(r -> r.readyAt < done ? r.cpuSeconds - r.cpuAtReady : 0).sum() / n);
      cpuPerWebApp.put(API_SERVER_WHILE_CREATED, apiServerWhileCreated);
      BenchResults.ScalingRun run = new BenchResults.ScalingRun(n, configuration.mode(), configuration.replicas(),
          timedOut, Figure.round(seconds), Figure.round(ScalingMath.perSecond(n, seconds)),
          Figure.round(span.seconds()), Figure.round(span.webAppsPerSecond()), Figure.rounded(cpuPerWebApp),
          Figure.round(replicas.stream().mapToLong(r -> r.reconciles).sum() / (double) n),
          Figure.round(requests.ownedWritesPer(n)), requests.conflicts(), requests.byVerbAndResource(),
          Figure.round(othersPercent(machineBefore, machineAfter, seconds)),
          replicas.stream().map(Replica::result).toList(), atRest, storedBefore);
      log.info("scaling N={} {}: {} s from the start ({} WebApps/s), first converged to all {} WebApps/s, CPU ms per "
              + "WebApp {}, per replica {}, at rest {}", n, configuration.label(), run.startToAllSeconds(),
          run.webAppsPerSecond(), run.firstToAllWebAppsPerSecond(), run.cpuMillisPerWebApp(), run.perReplica(),
          atRest);
      return run;
    } finally {
      stop(replicas);
      empty(ns);
      if (policy != null) {
        policy.close();
      }
    }
  }

  /** One replica of a run, with what is measured of it on the way. */
  private static final class Replica {
    final OperatorProcess process;
    final long start;
    long readyAt;
    double cpuAtReady = Double.NaN;
    double cpuSeconds = Double.NaN;
    Map<String, Double> cpuByThreadGroup = Map.of();
    int buckets;
    int cached;
    long reconciles;
    double peakRss = Double.NaN;
    long threads;
    double[] memory = {Double.NaN, Double.NaN, Double.NaN, Double.NaN};
    double idleCpuPercent = Double.NaN;
    final Map<String, Double> idleCpuByThreadGroup = new LinkedHashMap<>();

    Replica(OperatorProcess process, long start) {
      this.process = process;
      this.start = start;
    }

    BenchResults.ScalingReplica result() {
      return new BenchResults.ScalingReplica(process.identity(), Figure.round((readyAt - start) / 1e9),
          Figure.round(cpuAtReady), Figure.round(cpuSeconds), buckets, cached, Figure.round(memory[2] / MIB),
          Figure.round(memory[3] / MIB), Figure.round(peakRss / MIB), threads, Figure.round(idleCpuPercent),
          Figure.rounded(cpuByThreadGroup), Figure.rounded(idleCpuByThreadGroup));
    }
  }

  /**
   * Until all N have converged (true) or the harness's time for N ran out (false), noting when each
   * replica becomes ready (caches synced) and the CPU it had used by then.
   */
  private boolean awaitConverged(String ns, int n, List<Replica> replicas, long start) {
    long deadline = start + StewardBenchmark.convergeTimeout(n).toNanos();
    while (bench.observer.convergedIn(ns) < n) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      noteReadiness(replicas, deadline);
      Observer.sleep(25);
    }
    return true;
  }

  private void awaitReady(List<Replica> replicas) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (replicas.stream().anyMatch(r -> r.readyAt == 0)) {
      noteReadiness(replicas, deadline);
      Observer.sleep(25);
    }
  }

  private void noteReadiness(List<Replica> replicas, long deadline) {
    for (Replica r : replicas) {
      if (r.readyAt != 0) {
        continue;
      }
      StewardBenchmark.requireRunning(r.process, deadline);
      if (r.process.isReady()) {
        r.readyAt = System.nanoTime();
        r.cpuAtReady = ProcStats.cpuSeconds(r.process.pid());
        StewardBenchmark.requireSharedArchive(r.process, bench.asImage());
      }
    }
  }

  /**
   * Until every bucket Lease is held by one of the replicas and their loads differ by at most one (a
   * replica that started late may join after convergence); buckets per replica.
   */
  private Map<String, Integer> awaitBalanced(String ns, List<Replica> replicas, Configuration configuration)
      throws ApiException {
    Set<String> live = replicas.stream().map(r -> r.process.identity()).collect(Collectors.toSet());
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    CoordinationV1Api leases = new CoordinationV1Api(bench.admin);
    while (true) {
      Map<Integer, String> holders = new HashMap<>();
      for (V1Lease lease : leases.listNamespacedLease(ns).labelSelector("steward.io/shard-lease=bucket").execute()
          .getItems()) {
        String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
        holders.put(Integer.parseInt(lease.getMetadata().getLabels().get("steward.io/bucket")),
            holder == null ? "" : holder);
      }
      if (ScalingMath.balanced(holders, live, buckets)) {
        return ScalingMath.bucketsPerReplica(holders, live);
      }
      if (System.nanoTime() > deadline) {
        bench.results.notes.add("scaling " + ns + " (" + configuration.label() + "): the buckets were not balanced "
            + "within 2 minutes of convergence: " + holders);
        return ScalingMath.bucketsPerReplica(holders, live);
      }
      Observer.sleep(200);
    }
  }

  /**
   * The replicas left alone after convergence: their CPU, the control plane's, and what they send
   * (Lease renewals and nothing else, ideally), judged from the audit log.
   */
  private BenchResults.ScalingAtRest atRest(List<Replica> replicas, Set<String> agents) {
    Observer.sleep(2000); // past the full GCs just run
    long mark = bench.audit.size();
    Map<String, Double> controlPlaneBefore = bench.controlPlaneCpu();
    Map<Replica, Double> before = new LinkedHashMap<>();
    Map<Replica, Map<String, Double>> groupsBefore = new LinkedHashMap<>();
    replicas.forEach(r -> {
      groupsBefore.put(r, ProcStats.cpuSecondsByThreadGroup(r.process.pid()));
      before.put(r, ProcStats.cpuSeconds(r.process.pid()));
    });
    double[] machineBefore = machine(withReplicas(controlPlaneBefore, List.copyOf(before.values())));
    Instant from = Instant.now();
    long t0 = System.nanoTime();
    Observer.sleep(TimeUnit.SECONDS.toMillis(settings.scalingRestSeconds()));
    double seconds = (System.nanoTime() - t0) / 1e9;
    Instant to = Instant.now();
    Map<String, Double> controlPlaneAfter = bench.controlPlaneCpu();
    List<Double> after = replicas.stream().map(r -> ProcStats.cpuSeconds(r.process.pid())).toList();
    for (Replica r : replicas) {
      Map<String, Double> groupsAfter = ProcStats.cpuSecondsByThreadGroup(r.process.pid());
      groupsAfter.forEach((group, cpu) -> r.idleCpuByThreadGroup.put(group,
          ScalingMath.percentOfOneCore(groupsBefore.get(r).getOrDefault(group, Double.NaN), cpu, seconds)));
    }
    double[] machineAfter = machine(withReplicas(controlPlaneAfter, after));
    for (int i = 0; i < replicas.size(); i++) {
      Replica r = replicas.get(i);
      r.idleCpuPercent = ScalingMath.percentOfOneCore(before.get(r), after.get(i), seconds);
    }
    Observer.sleep(1000); // the audit log is written when a request completes
    List<AuditLog.Entry> sent = bench.audit.entriesAfter(mark, e -> agents.contains(e.userAgent()));
    List<Instant> all = sent.stream().map(AuditLog.Entry::received).toList();
    List<Instant> leaseWrites = sent.stream().filter(e -> e.mutating() && "leases".equals(e.resource()))
        .map(AuditLog.Entry::received).toList();
    List<Instant> objectWrites = sent.stream().filter(e -> e.mutating() && OBJECTS.contains(e.resource()))
        .map(AuditLog.Entry::received).toList();
    return new BenchResults.ScalingAtRest(Figure.round(seconds),
        Figure.round(ScalingMath.perSecond(ScalingMath.within(leaseWrites, from, to), seconds)),
        Figure.round(ScalingMath.perSecond(ScalingMath.within(all, from, to), seconds)),
        ScalingMath.within(objectWrites, from, to),
        Figure.round(controlPlaneShare(controlPlaneBefore, controlPlaneAfter, "kube-apiserver", seconds)),
        Figure.round(controlPlaneShare(controlPlaneBefore, controlPlaneAfter, "etcd", seconds)),
        Figure.round(othersPercent(machineBefore, machineAfter, seconds)));
  }

  /**
   * {the machine's busy CPU seconds, those of the measured processes: this JVM and {@code cpu}'s}, read
   * together, so that what the other processes took can be told (the machine may be shared).
   */
  private static double[] machine(Map<String, Double> cpu) {
    return new double[] {ProcStats.machineBusySeconds(), ProcStats.cpuSeconds(ProcessHandle.current().pid())
        + cpu.values().stream().mapToDouble(Double::doubleValue).sum()};
  }

  private static Map<String, Double> withReplicas(Map<String, Double> controlPlane, List<Double> replicas) {
    Map<String, Double> cpu = new LinkedHashMap<>(controlPlane);
    cpu.put("replicas", replicas.stream().mapToDouble(Double::doubleValue).sum());
    return cpu;
  }

  private static double othersPercent(double[] before, double[] after, double seconds) {
    return ScalingMath.othersPercentOfOneCore(before[0], after[0], before[1], after[1], seconds);
  }

  private static double controlPlaneShare(Map<String, Double> before, Map<String, Double> after, String component,
      double seconds) {
    return ScalingMath.percentOfOneCore(before.getOrDefault(component, Double.NaN),
        after.getOrDefault(component, Double.NaN), seconds);
  }

  /** SIGTERM to all at once (one after another, each leaving would hand its buckets to the rest first). */
  private void stop(List<Replica> replicas) {
    replicas.forEach(r -> r.process.operator().ifPresent(ProcessHandle::destroy));
    for (Replica r : replicas) {
      try {
        int code = r.process.waitForExit(Duration.ofSeconds(60));
        if (code != 0) {
          bench.results.notes.add("scaling: replica " + r.process.identity() + " exited with " + code);
        }
      } catch (IllegalStateException e) {
        bench.results.notes.add("scaling: replica " + r.process.identity() + " did not stop: " + e.getMessage());
      } finally {
        r.process.close();
      }
    }
  }

  /**
   * Deletes what the run made: the WebApps and their objects (no garbage collector runs on the API
   * shape) and the Leases. The namespace itself stays, empty: without the namespace controller its
   * deletion would never finish, and an empty namespace costs later runs nothing.
   */
  private void empty(String ns) throws Exception {
    bench.cleanup(ns);
    new CoordinationV1Api(bench.admin).deleteCollectionNamespacedLease(ns).execute();
  }

  /** WebApps, Deployments and Services stored in the whole cluster: what earlier runs left. */
  private Map<String, Long> storedObjects() throws ApiException {
    Object webApps = new CustomObjectsApi(bench.admin).listClusterCustomObject(WebApp.GROUP, WebApp.VERSION,
        WebApp.PLURAL).limit(1).execute();
    Map<String, Long> stored = new LinkedHashMap<>();
    stored.put("webapps", webApps instanceof Map<?, ?> list ? count(list) : -1);
    var deployments = new AppsV1Api(bench.admin).listDeploymentForAllNamespaces().limit(1).execute();
    stored.put("deployments", count(deployments.getMetadata(), deployments.getItems().size()));
    var services = new CoreV1Api(bench.admin).listServiceForAllNamespaces().limit(1).execute();
    stored.put("services", count(services.getMetadata(), services.getItems().size()));
    return stored;
  }

  /** The number of items a list with limit 1 stands for: what it returned plus what it says remains. */
  private static long count(V1ListMeta meta, int returned) {
    Long remaining = meta == null ? null : meta.getRemainingItemCount();
    return returned + (remaining == null ? 0 : remaining);
  }

  private static long count(Map<?, ?> list) {
    int returned = list.get("items") instanceof List<?> items ? items.size() : 0;
    Object remaining = list.get("metadata") instanceof Map<?, ?> meta ? meta.get("remainingItemCount") : null;
    return returned + (remaining instanceof Number number ? number.longValue() : 0);
  }
}
