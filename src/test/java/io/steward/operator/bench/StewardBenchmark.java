package io.steward.operator.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.steward.operator.deploy.ContainerImage;
import io.steward.operator.deploy.ServiceAccountAccess;
import io.steward.operator.runtime.cache.ReadYourWritesCache;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.DeploymentResource;
import io.steward.operator.webapp.ServiceResource;
import io.steward.operator.webapp.WebAppStatusCalculator;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.reconcile.WebAppStatusWriter;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Steward against the API server's own ceiling, side by side in one run on one API-shape local
 * cluster (etcd + kube-apiserver, no controllers), the operator being the built jar in a child JVM
 * with the Helm chart's JVM settings. See docs/performance.md.
 *
 * <ol>
 *   <li>Ceiling: Steward's own writes per WebApp (create Deployment, create Service, merge-patch
 *       status; the same objects, built by the same classes, sent by the same client) from as many
 *       threads as Steward has workers, as fast as the server takes them; once more with the
 *       largest N's WebApps still stored, to show what a larger store costs the server.
 *   <li>Convergence: N WebApps created at once while the operator runs, until every one is
 *       converged; and a backlog of N WebApps that exist before the operator starts.
 *   <li>Requests per WebApp by Steward's user agent, from the audit log.
 *   <li>Steady state: a restart and a periodic resync over N converged WebApps: writes and CPU.
 *   <li>Latency of a spec change to the Deployment, idle and while N others converge.
 *   <li>Memory after convergence; 7. start-up to readiness with 0 and N WebApps.
 * </ol>
 *
 * <p>8, the contenders ({@link Contenders}), and 9, single-leader against sharded mode at 1 to 3
 * replicas ({@link Scaling}; {@code -Dsteward.bench.only=scaling} runs it alone), run in the same
 * invocation.
 *
 * Every wait is bounded; everything listens on loopback; the cluster and operators are child
 * processes that die with this JVM.
 */
public final class StewardBenchmark {
  private static final Logger log = LoggerFactory.getLogger(StewardBenchmark.class);
  static final String NS_RUN = "bench";
  static final String NS_CEILING = "bench-ceiling";
  private static final String NS_LATENCY = "bench-latency";
  private static final String NS_LOAD = "bench-load";
  private static final Pattern JVM_STARTED =
      Pattern.compile("Started \\S+ in [0-9.]+ seconds \\(process running for ([0-9.]+)\\)");
  private static final double MIB = 1024 * 1024;
  /** The operator setting that selects sharded mode. */
  static final String SHARDING_ENABLED = "steward.sharding.enabled";
  /** The operator setting of a start-up variant with the word {@code sharded}. */
  private static final Map<String, String> SHARDED = Map.of(SHARDING_ENABLED, "true");
  /** A word of a JVM variant that sets the operator's environment instead (MALLOC_ARENA_MAX=2). */
  private static final Pattern ENVIRONMENT_VARIABLE = Pattern.compile("([A-Z][A-Z0-9_]*)=(.*)");
  /** A thread's name at the head of its entry in jcmd Thread.print. */
  private static final Pattern THREAD_NAME = Pattern.compile("^\"(.*?)\" ");

  final BenchSettings settings;
  final BenchResults results = new BenchResults();
  LocalCluster cluster;
  ApiClient admin;
  private Path operatorKubeconfig;
  private Path podKubeconfig;
  Observer observer;
  AuditLog audit;
  private final List<Double> startupEmpty = new ArrayList<>();
  private final List<Double> startupEmptyJvm = new ArrayList<>();
  private final List<double[]> ceilingAtWorkers = new ArrayList<>();
  private CeilingSamples ceilingWithLargestStored;
  private final Map<String, Run> runs = new LinkedHashMap<>();
  private ContainerImage.Assembled image;
  private Map<Integer, double[]> baselineMemory = new LinkedHashMap<>();
  private int operatorCount;
  private int nmtCount;
  /** Operators started with native memory tracking, whose memory() also writes where it goes. */
  private final java.util.Set<String> trackedOperators = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /** Steward's convergence runs as the contender comparison counts them (issue 17). */
  private final List<ContenderMath.Sample> stewardSamples = new ArrayList<>();

  /** One convergence run's raw measurements. */
  private record Run(String mode, int n, double pairedCeiling, double seconds, double createSeconds, double cpuSeconds,
      long reconciles,
      boolean timedOut, RequestCounts requests, double rss, double heapUsed, double liveHeap, double rssAfterGc,
      double baselineLiveHeap, double baselineRss, double peakRss, long threads, double rssAtRest) {}

  public StewardBenchmark(BenchSettings settings) {
    this.settings = settings;
  }

  public BenchResults run() throws Exception {
    long start = System.nanoTime();
    results.date = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).toString();
    Files.createDirectories(settings.output());
    // The operator as the image runs it: the Dockerfile's layout and class-data-sharing archive.
    image = settings.image() ? ContainerImage.read().assemble(settings.output().resolve("image").toAbsolutePath())
        : null;
    describeMachineAndSettings();
    cluster = LocalCluster.start(LocalCluster.Shape.API, settings.clusterDir());
    try {
      admin = LocalCluster.clientFor(cluster.kubeconfigFor("steward-bench"), "steward-bench/admin");
      admin.setReadTimeout(60_000);
      operatorKubeconfig = cluster.kubeconfigFor("steward-operator");
      audit = cluster.auditLog();
      Crds.installWebAppCrd(admin);
      for (String ns : List.of(NS_RUN, NS_CEILING, NS_LATENCY, NS_LOAD)) {
        new CoreV1Api(admin).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(ns))).execute();
      }
      ApiClient watchClient = LocalCluster.clientFor(cluster.kubeconfigFor("steward-bench"), "steward-bench/observer");
      watchClient.setReadTimeout(0);
      observer = new Observer(watchClient);
      try {
        measure();
      } finally {
        observer.close();
      }
      recordControlPlane();
    } finally {
      cluster.close();
    }
    results.machine.put("loadAverageAtEnd", ProcStats.loadAverage());
    results.totalSeconds = Figure.round((System.nanoTime() - start) / 1e9);
    ResultsWriter.write(results, settings.output());
    return results;
  }

  private void measure() throws Exception {
    if (settings.everySection()) {
      measureEverySection();
    } else if (settings.latencyOnly()) {
      results.latency = latency();
    } else if (settings.startupOnly()) {
      Map<String, List<String>> variants = new LinkedHashMap<>();
      variants.put("the image", List.of());
      variants.putAll(settings.startupVariants());
      startupVariants(variants);
    }
    // 9. Sharding's scaling (issue 16), last: its tens of thousands of objects, although deleted,
    // stay in etcd's history until compaction and would weigh on the sections above.
    if (settings.scaling()) {
      Scaling scaling = new Scaling(this);
      scaling.run();
      results.scaling = scaling.summarize();
    }
  }

  private void measureEverySection() throws Exception {
    // 1. Ceiling: a warm-up (JIT, server caches), then the sweep of other concurrencies.
    ceiling(settings.pairedConcurrency(), Math.max(10, settings.ceilingSize() / 5), "warmup");
    List<CeilingSamples> sweep = new ArrayList<>();
    for (int c : settings.ceilingConcurrencies()) {
      if (c != settings.pairedConcurrency()) {
        sweep.add(new CeilingSamples(c, false, 0, List.of(ceiling(c, settings.ceilingSize(), "c" + c))));
      }
    }
    if (settings.ceilingWithEvents()) {
      int c = settings.pairedConcurrency();
      sweep.add(new CeilingSamples(c, true, 0, List.of(ceiling(c, settings.ceilingSize(), "events-c" + c, true))));
    }
    // 2-4, 6, 7: ceiling and convergence runs interleaved, so that drift hits both alike.
    // Each convergence run is paired with a ceiling run just before it: the machine's load drifts
    // (other builds), and a ratio of neighbours is steadier than a ratio of medians.
    for (int r = 1; r <= settings.repeats(); r++) {
      for (int n : settings.sizes()) {
        if (r <= settings.repeatsFor(n)) {
          double[] ceiling = pairedCeiling("n" + n + "r" + r);
          runs.put("create-at-once/" + n + "/" + r, convergeCreatedAtOnce(n, r, ceiling[1]));
        }
      }
      for (int n : settings.backlogSizes()) {
        if (r <= settings.repeatsFor(n)) {
          double[] ceiling = pairedCeiling("backlog-n" + n + "r" + r);
          runs.put("backlog/" + n + "/" + r, convergeBacklog(n, r, ceiling[1]));
        }
      }
    }
    // The same at the largest N with other JVM options (the JVM's defaults), side by side.
    for (int k = 0; k < settings.compareJvmOptions().size() && settings.largestSize() > 0; k++) {
      int n = settings.largestSize();
      List<String> options = settings.compareJvmOptions().get(k);
      double[] ceiling = pairedCeiling("compare" + k + "-n" + n);
      runs.put("compare" + k + "/" + n + "/1", convergeCreatedAtOnce(n, 1, ceiling[1],
          "create-at-once, chart JVM + " + String.join(" ", options), options));
    }
    // 8. The contenders: the client-go writer's ceiling and a controller-runtime operator (issue 17).
    Contenders contenders = settings.contenders() ? new Contenders(this) : null;
    if (contenders != null) {
      contenders.run();
    }
    for (CeilingSamples c : sweep) {
      results.ceiling.add(c.toResult(settings.ceilingSize()));
    }
    results.ceiling.add(new CeilingSamples(settings.pairedConcurrency(), false, 0, ceilingAtWorkers)
        .toResult(settings.ceilingSize()));
    if (ceilingWithLargestStored != null) {
      results.ceiling.add(ceilingWithLargestStored.toResult(settings.ceilingSize()));
    }
    results.ceiling.sort(java.util.Comparator.comparingInt(BenchResults.Ceiling::concurrency)
        .thenComparing(BenchResults.Ceiling::withEvents).thenComparingInt(BenchResults.Ceiling::storedWebApps));
    summarizeRuns();
    if (contenders != null) {
      results.contenders = contenders.summarize(stewardSamples, results.convergence);
    }
    // 5. Latency.
    results.latency = latency();
    results.startup.add(0, new BenchResults.Startup(0, Figure.of("s", startupEmpty), Figure.of("s", startupEmptyJvm)));
    // 7b. Start-up with other JVM options.
    startupVariants(settings.startupVariants());
  }

  // ---- 1. ceiling --------------------------------------------------------------------------------

  private double[] pairedCeiling(String tag) throws Exception {
    double[] sample = ceiling(settings.pairedConcurrency(), settings.ceilingSize(),
        "c" + settings.pairedConcurrency() + "-" + tag);
    ceilingAtWorkers.add(sample);
    return sample;
  }

  /** Ceiling runs at one concurrency. */
  private record CeilingSamples(int concurrency, boolean withEvents, int storedWebApps, List<double[]> samples) {
    BenchResults.Ceiling toResult(int webApps) {
      return new BenchResults.Ceiling(concurrency, withEvents, storedWebApps, webApps,
          Figure.of("objects/s", samples.stream().map(s -> s[0]).toList()),
          Figure.of("WebApps/s", samples.stream().map(s -> s[1]).toList()),
          (int) samples.stream().mapToDouble(s -> s[2]).sum());
    }
  }

  /** Returns {objects/s, WebApps/s, failed requests}. */
  private double[] ceiling(int concurrency, int count, String tag) throws Exception {
    return ceiling(concurrency, count, tag, false);
  }

  /** With {@code events}, each WebApp also gets an Event: what recording its creation would cost. */
  private double[] ceiling(int concurrency, int count, String tag, boolean events) throws Exception {
    List<String> names = names("ceil-" + tag + "-", count);
    createWebApps(NS_CEILING, names, true);
    List<WebApp> webApps = new ArrayList<>(new WebApps(admin, NS_CEILING).list());
    ApiClient client = LocalCluster.clientFor(cluster.kubeconfigFor("steward-ceiling"), "steward-ceiling/" + tag);
    var deployments = new GenericKubernetesApi<>(V1Deployment.class, V1DeploymentList.class, "apps", "v1",
        "deployments", client);
    var services = new GenericKubernetesApi<>(V1Service.class, V1ServiceList.class, "", "v1", "services", client);
    DeploymentResource deploymentResource = new DeploymentResource();
    ServiceResource serviceResource = new ServiceResource();
    WebAppStatusCalculator calculator = new WebAppStatusCalculator();
    // Steward's writer, with the cache it tells about its writes (here nothing is read back).
    WebAppStatusWriter statusWriter = new WebAppStatusWriter(client, new ReadYourWritesCache<WebApp>((ns, name) -> null));
    CoreV1Api core = new CoreV1Api(client);
    ConcurrentLinkedQueue<WebApp> queue = new ConcurrentLinkedQueue<>(webApps);
    AtomicInteger failed = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    long t0 = System.nanoTime();
    List<Future<?>> workers = new ArrayList<>();
    for (int i = 0; i < concurrency; i++) {
      workers.add(pool.submit(() -> {
        for (WebApp w = queue.poll(); w != null; w = queue.poll()) {
          // What one reconcile of a new WebApp sends, built by Steward's own classes.
          KubernetesApiResponse<V1Deployment> d = deployments.create(deploymentResource.desired(w));
          KubernetesApiResponse<V1Service> s = services.create(serviceResource.desired(w));
          if (!d.isSuccess() || !s.isSuccess()) {
            failed.incrementAndGet();
          }
          try {
            statusWriter.writeIfChanged(w, calculator.compute(
                new WebAppStatusCalculator.Observation(w, d.getObject(), s.getObject(), null),
                OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS)));
            if (events) {
              core.createNamespacedEvent(NS_CEILING, event(w)).execute();
            }
          } catch (RuntimeException | ApiException e) {
            failed.incrementAndGet();
          }
        }
        return null;
      }));
    }
    for (Future<?> worker : workers) {
      worker.get(10, TimeUnit.MINUTES);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    cleanup(NS_CEILING);
    double[] sample = {(events ? 4 : 3) * count / seconds, count / seconds, failed.get()};
    if (failed.get() > 0) {
      results.notes.add("ceiling " + tag + ": " + failed.get() + " WebApps had a failed request");
    }
    log.info("ceiling {} (concurrency {}, {} WebApps): {} objects/s, {} WebApps/s, {} failed", tag, concurrency,
        count, Figure.format(sample[0]), Figure.format(sample[1]), failed.get());
    return sample;
  }

  /** An Event as client-java's legacy recorder sends it for Steward's "Created" (after a re-creation). */
  private static io.kubernetes.client.openapi.models.CoreV1Event event(WebApp w) {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    return new io.kubernetes.client.openapi.models.CoreV1Event()
        .metadata(new V1ObjectMeta().namespace(w.getMetadata().getNamespace())
            .name(w.getMetadata().getName() + "." + Long.toHexString(System.nanoTime())))
        .involvedObject(new io.kubernetes.client.openapi.models.V1ObjectReference().apiVersion(WebApp.API_VERSION)
            .kind(WebApp.KIND).namespace(w.getMetadata().getNamespace()).name(w.getMetadata().getName())
            .uid(w.getMetadata().getUid()).resourceVersion(w.getMetadata().getResourceVersion()))
        .reason("Created").message("Created Deployment " + w.getMetadata().getName() + " and Service "
            + w.getMetadata().getName()).type("Normal")
        .source(new io.kubernetes.client.openapi.models.V1EventSource().component("steward").host("bench"))
        .firstTimestamp(now).lastTimestamp(now).count(1);
  }

  // ---- 2-4, 6, 7: convergence -----------------------------------------------------------------

  private Run convergeCreatedAtOnce(int n, int repeat, double pairedCeiling) throws Exception {
    return convergeCreatedAtOnce(n, repeat, pairedCeiling, "create-at-once", List.of());
  }

  /**
   * {@code variant}: JVM options and environment variables added to the chart's for a comparison (no
   * steady-state phase then), and the word {@code token} to authenticate as a pod does.
   */
  private Run convergeCreatedAtOnce(int n, int repeat, double pairedCeiling, String mode, List<String> variant)
      throws Exception {
    boolean compare = !variant.isEmpty();
    String id = (compare ? "compare" + runs.size() + "-n" : "n") + n + "-r" + repeat;
    List<String> extraJvmOptions = variant.stream().filter(word -> !word.equals("token")).toList();
    Operator op = startOperator("bench-" + id, Map.of(), image != null, extraJvmOptions,
        variant.contains("token") ? podKubeconfig() : operatorKubeconfig);
    if (!compare) {
      startupEmpty.add(op.secondsToReady);
      startupEmptyJvm.add(op.jvmReportedSeconds());
    }
    double[] baseline = memory(op.process, true);
    long mark = audit.size();
    double cpu0 = ProcStats.cpuSeconds(op.process.pid());
    Map<String, Double> cpuBefore = controlPlaneCpu();
    long reconciles0 = reconcileTotal(op.process);
    List<String> names = names(id + "-", n);
    long t0 = System.nanoTime();
    double createSeconds = createWebApps(NS_RUN, names, true);
    long done = observer.awaitConverged(NS_RUN, n, convergeTimeout(n));
    boolean timedOut = done < 0;
    double seconds = ((timedOut ? System.nanoTime() : done) - t0) / 1e9;
    results.curves.add(new BenchResults.Curve(mode, n, repeat, pairedCeiling, curve(names, t0)));
    settle(op.process);
    double cpu = ProcStats.cpuSeconds(op.process.pid()) - cpu0;
    Map<String, Double> cpuAfter = controlPlaneCpu();
    long reconciles = reconcileTotal(op.process) - reconciles0;
    RequestCounts requests = requestsBy(op.process, mark);
    if (!compare) {
      cpuAfter.put("operator", cpu);
      stewardSamples.add(stewardSample(mode, n, names, t0, cpuBefore, cpuAfter, op, requests, timedOut));
    }
    double peakRss = ProcStats.peakRssBytes(op.process.pid());
    long threads = ProcStats.threads(op.process.pid());
    double[] atConvergence = memory(op.process, false);
    double rssAtRest = Double.NaN;
    if (settings.restSeconds() > 0) {
      Observer.sleep(TimeUnit.SECONDS.toMillis(settings.restSeconds()));
      rssAtRest = ProcStats.rssBytes(op.process.pid());
    }
    double[] after = memory(op.process, true);
    after[0] = atConvergence[0];
    after[1] = atConvergence[1];
    log.info("{} N={} #{}: {} s ({} WebApps/s; creating took {} s), {} owned writes/WebApp, {} GETs, "
            + "{} events, cpu {} s, RSS {} MiB, live heap {} MiB{}", mode, n, repeat, Figure.format(seconds),
        Figure.format(n / seconds), Figure.format(createSeconds), Figure.format(requests.ownedWritesPer(n)),
        requests.gets(), requests.events(), Figure.format(cpu), Figure.format(after[0] / MIB),
        Figure.format(after[2] / MIB), timedOut ? " TIMED OUT at " + observer.convergedIn(NS_RUN) + " converged" : "");
    if (timedOut) {
      results.notes.add("create-at-once N=" + n + " #" + repeat + " timed out after " + convergeTimeout(n)
          + " with " + observer.convergedIn(NS_RUN) + " converged");
    }
    if (!compare && !timedOut && settings.contenders() && n == settings.contenderSize()) {
      stewardSamples.add(secondBurst(ContenderMath.STEWARD, id, n, () -> ProcStats.cpuSeconds(op.process.pid()),
          () -> settle(op.process), since -> requestsBy(op.process, since),
          () -> ProcStats.peakRssBytes(op.process.pid())));
    }
    stop(op);
    boolean last = !compare && n == settings.largestSize() && repeat == settings.repeatsFor(n) && !timedOut;
    if (last) {
      steadyStateAndStartup(n);
      // The paired ceiling once more, with these N WebApps and their objects still stored (the
      // operator stopped): how much of the gap at large N is the API server holding more.
      int c = settings.pairedConcurrency();
      ceilingWithLargestStored = new CeilingSamples(c, false, n,
          List.of(ceiling(c, settings.ceilingSize(), "c" + c + "-with-n" + n + "-stored")));
    }
    cleanup(NS_RUN);
    return new Run(mode, n, pairedCeiling, seconds, createSeconds, cpu, reconciles, timedOut, requests, after[0],
        after[1],
        after[2], after[3], baseline[2], baseline[3], peakRss, threads, rssAtRest);
  }

  private Run convergeBacklog(int n, int repeat, double pairedCeiling) throws Exception {
    String id = "backlog-n" + n + "-r" + repeat;
    List<String> names = names(id + "-", n);
    createWebApps(NS_RUN, names, true);
    long mark = audit.size();
    Map<String, Double> cpuBefore = controlPlaneCpu();
    Operator op = startOperator("bench-" + id, Map.of());
    // From the moment it is ready and leads (client-java's elector takes a retry period to report
    // a won Lease, which is start-up rather than throughput).
    long ready = op.leadingAt;
    double cpu0 = ProcStats.cpuSeconds(op.process.pid());
    long done = observer.awaitConverged(NS_RUN, n, convergeTimeout(n));
    boolean timedOut = done < 0;
    double seconds = ((timedOut ? System.nanoTime() : done) - ready) / 1e9;
    results.curves.add(new BenchResults.Curve("backlog", n, repeat, pairedCeiling, curve(names, ready)));
    settle(op.process);
    double cpu = ProcStats.cpuSeconds(op.process.pid()) - cpu0;
    Map<String, Double> cpuAfter = controlPlaneCpu();
    cpuAfter.put("operator", ProcStats.cpuSeconds(op.process.pid())); // from the process start, as for the others
    long reconciles = reconcileTotal(op.process);
    RequestCounts requests = requestsBy(op.process, mark);
    long spawned = op.readyAt - (long) (op.secondsToReady * 1e9);
    stewardSamples.add(stewardSample("backlog", n, names, spawned, cpuBefore, cpuAfter, op, requests, timedOut));
    double peakRss = ProcStats.peakRssBytes(op.process.pid());
    long threads = ProcStats.threads(op.process.pid());
    double[] after = memory(op.process, true);
    log.info("backlog N={} #{}: {} s from readiness ({} WebApps/s; start-up {} s), {} owned writes/WebApp, {} GETs{}",
        n, repeat, Figure.format(seconds), Figure.format(n / seconds), Figure.format(op.secondsToReady),
        Figure.format(requests.ownedWritesPer(n)), requests.gets(), timedOut ? " TIMED OUT" : "");
    if (timedOut) {
      results.notes.add("backlog N=" + n + " #" + repeat + " timed out with " + observer.convergedIn(NS_RUN)
          + " converged");
    }
    stop(op);
    cleanup(NS_RUN);
    return new Run("backlog", n, pairedCeiling, seconds, Double.NaN, cpu, reconciles, timedOut, requests, after[0],
        after[1],
        after[2], after[3], Double.NaN, Double.NaN, peakRss, threads, Double.NaN);
  }

  private ContenderMath.Sample stewardSample(String mode, int n, List<String> names, long start,
      Map<String, Double> cpuBefore, Map<String, Double> cpuAfter, Operator op, RequestCounts requests,
      boolean timedOut) {
    return sample(ContenderMath.STEWARD, mode, n, names, start, cpuBefore, cpuAfter,
        ProcStats.peakRssBytes(op.process.pid()), requests, timedOut);
  }

  /**
   * One contender's run of {@code names} (in NS_RUN) as measured: {@code start} is when its clock
   * starts (the first create, or the process start for a backlog); CPU seconds by process before and
   * after.
   */
  ContenderMath.Sample sample(String contender, String mode, int n, List<String> names, long start,
      Map<String, Double> cpuBefore, Map<String, Double> cpuAfter, double peakRssBytes, RequestCounts requests,
      boolean timedOut) {
    ContenderMath.Span span = span(names);
    return new ContenderMath.Sample(contender, mode, n, span, span.count() == 0 ? Double.NaN : (span.first() - start) / 1e9,
        ContenderMath.cpuMillisPerWebApp(cpuBefore, cpuAfter, n), peakRssBytes, requests, timedOut);
  }

  /**
   * {@code n} more WebApps created at once in NS_RUN for an operator that has just converged the
   * first {@code n} there: the same work for a process whose code is compiled and whose caches and
   * connections are warm, as a long-running operator meets a burst. Measured as the first burst is.
   */
  ContenderMath.Sample secondBurst(String contender, String id, int n, DoubleSupplier operatorCpu, Runnable settle,
      LongFunction<RequestCounts> requestsSince, DoubleSupplier peakRss) throws Exception {
    int converged = observer.convergedIn(NS_RUN);
    long mark = audit.size();
    Map<String, Double> before = controlPlaneCpu();
    before.put("operator", operatorCpu.getAsDouble());
    List<String> names = names(id + "-again-", n);
    long t0 = System.nanoTime();
    createWebApps(NS_RUN, names, true);
    boolean timedOut = observer.awaitConverged(NS_RUN, converged + n, convergeTimeout(n)) < 0;
    if (timedOut) {
      results.notes.add(contender + " " + ContenderMath.SECOND_BURST + " N=" + n + " (" + id + ") timed out with "
          + (observer.convergedIn(NS_RUN) - converged) + " converged");
    }
    settle.run();
    Map<String, Double> after = controlPlaneCpu();
    after.put("operator", operatorCpu.getAsDouble());
    RequestCounts requests = requestsSince.apply(mark);
    ContenderMath.Sample sample = sample(contender, ContenderMath.SECOND_BURST, n, names, t0, before, after,
        peakRss.getAsDouble(), requests, timedOut);
    log.info("{} {} N={} ({}): {} s first→all ({} WebApps/s), {} writes/WebApp, {} GETs, CPU ms/WebApp {}", contender,
        ContenderMath.SECOND_BURST, n, id, Figure.format(sample.span().seconds()),
        Figure.format(sample.span().webAppsPerSecond()),
        Figure.format(requests.ownedWritesPer(n)), requests.gets(), Figure.rounded(sample.cpuMillisPerWebApp()));
    return sample;
  }

  /** From the first of {@code names} (in NS_RUN) to converge to the last. */
  ContenderMath.Span span(List<String> names) {
    return span(NS_RUN, names);
  }

  ContenderMath.Span span(String namespace, List<String> names) {
    return ContenderMath.Span.of(names.stream().map(name -> observer.convergedAt(namespace, name)).toList());
  }

  /** CPU seconds so far of etcd and kube-apiserver, by component name. */
  Map<String, Double> controlPlaneCpu() {
    Map<String, Double> cpu = new LinkedHashMap<>();
    for (var component : cluster.components()) {
      if (component.isRunning()) {
        cpu.put(component.name(), ProcStats.cpuSeconds(component.pid()));
      }
    }
    return cpu;
  }

  /** WebApps of {@code names} (in NS_RUN) converged over time since {@code t0} (System.nanoTime()), about 200 points. */
  List<double[]> curve(List<String> names, long t0) {
    return curve(NS_RUN, names, t0);
  }

  List<double[]> curve(String namespace, List<String> names, long t0) {
    List<Double> at = names.stream().mapToLong(name -> observer.convergedAt(namespace, name)).filter(t -> t > 0)
        .sorted().mapToObj(t -> Math.max(0, (t - t0) / 1e9)).toList();
    List<double[]> points = new ArrayList<>(List.of(new double[] {0, 0}));
    int step = Math.max(1, at.size() / 200);
    for (int i = step - 1; i < at.size(); i += step) {
      points.add(new double[] {Figure.round(at.get(i)), i + 1});
    }
    if (!at.isEmpty() && (at.size() % step) != 0) {
      points.add(new double[] {Figure.round(at.get(at.size() - 1)), at.size()});
    }
    return points;
  }

  static Duration convergeTimeout(int n) {
    return Duration.ofSeconds(120 + n / 10);
  }

  private void summarizeRuns() {
    runs.forEach((key, r) -> {
      Map<String, Object> raw = new LinkedHashMap<>();
      raw.put("run", key);
      raw.put("seconds", Figure.round(r.seconds()));
      raw.put("webAppsPerSecond", Figure.round(r.n() / r.seconds()));
      raw.put("pairedCeilingWebAppsPerSecond", Figure.round(r.pairedCeiling()));
      raw.put("ratioToPairedCeiling", Figure.round(r.n() / r.seconds() / r.pairedCeiling()));
      raw.put("createSeconds", Figure.round(r.createSeconds()));
      raw.put("operatorCpuSeconds", Figure.round(r.cpuSeconds()));
      raw.put("operatorCpuMillisPerWebApp", Figure.round(1000 * r.cpuSeconds() / r.n()));
      raw.put("reconcilesPerWebApp", Figure.round(r.reconciles() / (double) r.n()));
      raw.put("timedOut", r.timedOut());
      raw.put("rssMiB", Figure.round(r.rss() / MIB));
      raw.put("liveHeapMiB", Figure.round(r.liveHeap() / MIB));
      raw.put("requests", r.requests().byVerbAndResource());
      results.runs.add(raw);
    });
    Map<String, List<Run>> groups = new LinkedHashMap<>();
    runs.values().forEach(r -> groups.computeIfAbsent(r.mode() + "/" + r.n(), k -> new ArrayList<>()).add(r));
    List<List<Run>> memoryGroups = new ArrayList<>();
    for (List<Run> group : groups.values()) {
      Run first = group.get(0);
      int n = first.n();
      List<Run> ok = group.stream().filter(r -> !r.timedOut()).toList();
      Figure perSecond = Figure.of("WebApps/s", ok.stream().map(r -> n / r.seconds()).toList());
      results.convergence.add(new BenchResults.Convergence(first.mode(), n,
          Figure.of("s", ok.stream().map(Run::seconds).toList()), perSecond,
          Figure.of("", ok.stream().map(r -> n / r.seconds() / r.pairedCeiling()).toList()),
          Figure.of("s", ok.stream().map(Run::createSeconds).filter(d -> !d.isNaN()).toList()),
          Figure.of("s", ok.stream().map(Run::cpuSeconds).toList()), group.size() - ok.size()));
      results.requests.add(new BenchResults.Requests(first.mode(), n,
          Figure.of("per WebApp", group.stream().map(r -> r.requests().ownedWritesPer(n)).toList()),
          Figure.of("per WebApp", group.stream().map(r -> r.requests().getsPer(n)).toList()),
          Figure.of("per WebApp", group.stream().map(r -> r.requests().events() / (double) n).toList()),
          Figure.of("", group.stream().map(r -> r.requests().conflicts()).toList()),
          Figure.of("", group.stream().map(r -> r.requests().lists()).toList()),
          Figure.of("per WebApp", group.stream().map(r -> r.reconciles() / (double) n).toList()),
          Figure.of("ms per WebApp", group.stream().map(r -> 1000 * r.cpuSeconds() / n).toList()),
          group.get(group.size() - 1).requests().byVerbAndResource()));
      if (first.mode().startsWith("create-at-once")) {
        memoryGroups.add(group);
      }
    }
    for (List<Run> group : memoryGroups) {
      int n = group.get(0).n();
      String jvm = group.get(0).mode().equals("create-at-once") ? "chart"
          : group.get(0).mode().substring(group.get(0).mode().indexOf(", ") + 2);
      results.memory.add(new BenchResults.Memory(n, jvm,
          Figure.of("MiB", group.stream().map(r -> r.rss() / MIB).toList()),
          Figure.of("MiB", group.stream().map(r -> r.heapUsed() / MIB).toList()),
          Figure.of("MiB", group.stream().map(r -> r.liveHeap() / MIB).toList()),
          Figure.of("MiB", group.stream().map(r -> r.rssAfterGc() / MIB).toList()),
          Figure.of("B", group.stream().map(r -> (r.liveHeap() - r.baselineLiveHeap()) / n).toList()),
          Figure.of("B", group.stream().map(r -> (r.rssAfterGc() - r.baselineRss()) / n).toList()),
          Figure.of("MiB", group.stream().map(r -> r.peakRss() / MIB).toList()),
          Figure.of("MiB", group.stream().map(r -> r.baselineRss() / MIB).toList()),
          Figure.of("", group.stream().map(r -> (double) r.threads()).toList()),
          Figure.of("MiB", group.stream().filter(r -> !Double.isNaN(r.rssAtRest())).map(r -> r.rssAtRest() / MIB)
              .toList())));
    }
    List<Run> baselines = runs.values().stream().filter(r -> r.mode().equals("create-at-once")).toList();
    if (!baselines.isEmpty()) {
      results.memory.add(0, new BenchResults.Memory(0, "chart", Figure.of("", List.of()), Figure.of("", List.of()),
          Figure.of("MiB", baselines.stream().map(r -> r.baselineLiveHeap() / MIB).toList()),
          Figure.of("MiB", baselines.stream().map(r -> r.baselineRss() / MIB).toList()),
          Figure.of("", List.of()), Figure.of("", List.of()), Figure.of("", List.of()), Figure.of("", List.of()),
          Figure.of("", List.of()), Figure.of("", List.of())));
    }
  }

  // ---- 4 and 7: steady state, start-up with N existing -----------------------------------------

  private void steadyStateAndStartup(int n) throws Exception {
    List<Double> startups = new ArrayList<>();
    List<Double> startupsJvm = new ArrayList<>();
    List<BenchResults.Pass> passes = new ArrayList<>();
    double idleCpuPercent = Double.NaN;
    for (int s = 1; s <= settings.startupRepeats(); s++) {
      boolean measureResync = s == settings.startupRepeats();
      long mark = audit.size();
      Operator op = startOperator("bench-steady-n" + n + "-" + s,
          Map.of("steward.resync-period", settings.resyncPeriod()));
      startups.add(op.secondsToReady);
      startupsJvm.add(op.jvmReportedSeconds());
      // The restart's initial pass: every WebApp is reconciled once (informer add events).
      double cpu0 = ProcStats.cpuSeconds(op.process.pid());
      long t0 = op.readyAt;
      long total = awaitReconciles(op.process, n, Duration.ofSeconds(120 + n / 10));
      double cpu1 = ProcStats.cpuSeconds(op.process.pid());
      double seconds = (System.nanoTime() - t0) / 1e9;
      passes.add(pass("restart #" + s + " (start-up to initial pass done)", n, (int) total, seconds, cpu1 - cpu0,
          requestsBy(op.process, mark)));
      if (measureResync) {
        // Idle until the periodic resync starts (not even polled until shortly before it is due,
        // so that the idle CPU is the operator's own), then the resync pass.
        long idleStart = System.nanoTime();
        double idleCpu0 = ProcStats.cpuSeconds(op.process.pid());
        long resyncMark = audit.size();
        long due = op.readyAt + parseDuration(settings.resyncPeriod()).toNanos() - TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < due) {
          Observer.sleep(Math.max(1, Math.min(1000, (due - System.nanoTime()) / 1_000_000)));
        }
        double lastCpu = ProcStats.cpuSeconds(op.process.pid());
        long lastPoll = System.nanoTime();
        idleCpuPercent = 100 * (lastCpu - idleCpu0) / ((lastPoll - idleStart) / 1e9);
        long deadline = System.nanoTime() + parseDuration(settings.resyncPeriod()).plusSeconds(60).toNanos();
        long current = total;
        while (current == total && System.nanoTime() < deadline) {
          Observer.sleep(100);
          lastCpu = ProcStats.cpuSeconds(op.process.pid());
          lastPoll = System.nanoTime();
          current = reconcileTotal(op.process);
        }
        if (current == total) {
          results.notes.add("steady state: the periodic resync did not start within " + settings.resyncPeriod()
              + " + 60 s");
        } else {
          passes.add(pass("idle until the resync (nothing changes; re-lists would show here)", n, 0,
              (lastPoll - idleStart) / 1e9, lastCpu - idleCpu0, requestsBy(op.process, resyncMark)));
          long passMark = audit.size();
          long resyncStart = lastPoll;
          long after = awaitReconciles(op.process, total + n, Duration.ofSeconds(60 + n / 10));
          double cpu2 = ProcStats.cpuSeconds(op.process.pid());
          Observer.sleep(1000); // requests in flight reach the audit log
          passes.add(pass("periodic resync (steward.resync-period=" + settings.resyncPeriod() + ")", n,
              (int) (after - total), (System.nanoTime() - resyncStart - 1_000_000_000L) / 1e9, cpu2 - lastCpu,
              requestsBy(op.process, passMark)));
        }
      }
      stop(op);
    }
    results.steadyState =
        new BenchResults.SteadyState(n, settings.resyncPeriod(), passes, Figure.round(idleCpuPercent));
    results.startup.add(new BenchResults.Startup(n, Figure.of("s", startups), Figure.of("s", startupsJvm)));
  }

  private static BenchResults.Pass pass(String what, int n, int reconciles, double seconds, double cpu,
      RequestCounts counts) {
    Map<String, Integer> writes = new LinkedHashMap<>();
    writes.putAll(counts.byVerbAndResource());
    return new BenchResults.Pass(what, n, reconciles, Figure.round(seconds), Figure.round(cpu), counts.ownedWrites(),
        counts.gets(), counts.events(), counts.leases(), counts.lists(), writes);
  }

  /** Waits until at least {@code atLeast} reconciles have run and the queue is idle; returns the total. */
  private long awaitReconciles(OperatorProcess op, long atLeast, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long idleSince = 0;
    while (System.nanoTime() < deadline) {
      JsonObject counts = reconciles(op);
      if (counts != null) {
        long total = total(counts);
        boolean idle = counts.get("queueDepth").getAsInt() == 0 && counts.get("activeWorkers").getAsInt() == 0;
        if (total >= atLeast && idle) {
          if (idleSince == 0) {
            idleSince = System.nanoTime();
          } else if (System.nanoTime() - idleSince > 500_000_000L) {
            return total;
          }
        } else {
          idleSince = 0;
        }
      }
      Observer.sleep(100);
    }
    results.notes.add("waiting for " + atLeast + " reconciles timed out after " + timeout);
    return reconcileTotal(op);
  }

  long reconcileTotal(OperatorProcess op) {
    JsonObject counts = reconciles(op);
    return counts == null ? -1 : total(counts);
  }

  private static long total(JsonObject counts) {
    return counts.get("success").getAsLong() + counts.get("error").getAsLong() + counts.get("requeue").getAsLong()
        + counts.get("requeue_after").getAsLong();
  }

  private static JsonObject reconciles(OperatorProcess op) {
    HttpResponse<String> response = op.actuator("reconciles");
    return response == null || response.statusCode() != 200 ? null
        : JsonParser.parseString(response.body()).getAsJsonObject();
  }

  /** After convergence: the queue drains and stays empty, so late writes (retries) are counted too. */
  void settle(OperatorProcess op) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long idleSince = 0;
    while (System.nanoTime() < deadline) {
      JsonObject counts = reconciles(op);
      boolean idle = counts != null && counts.get("queueDepth").getAsInt() == 0
          && counts.get("activeWorkers").getAsInt() == 0;
      if (idle && idleSince == 0) {
        idleSince = System.nanoTime();
      } else if (!idle) {
        idleSince = 0;
      } else if (System.nanoTime() - idleSince > 2_000_000_000L) {
        return;
      }
      Observer.sleep(100);
    }
  }

  // ---- 5. latency -------------------------------------------------------------------------------

  private BenchResults.Latency latency() throws Exception {
    int changes = settings.latencyChanges();
    int load = settings.latencyLoad();
    Operator op = startOperator("bench-latency", Map.of());
    List<String> names = names("lat-", changes);
    createWebApps(NS_LATENCY, names, true);
    if (observer.awaitConverged(NS_LATENCY, changes, convergeTimeout(changes)) < 0) {
      results.notes.add("latency: the WebApps to change did not converge");
    }
    CustomObjectsApi custom = new CustomObjectsApi(admin);
    // Idle: one change at a time; the next once the previous one's status caught up.
    List<Double> idleMillis = new ArrayList<>();
    int idleLost = 0;
    for (int i = 0; i < changes; i++) {
      String name = names.get(i);
      String image = "registry.local/bench:idle-" + i;
      CompletableFuture<Long> seen = observer.whenDeploymentImage(NS_LATENCY, name, image);
      long t0 = System.nanoTime();
      patchImage(custom, name, image);
      try {
        idleMillis.add((seen.get(30, TimeUnit.SECONDS) - t0) / 1e6);
      } catch (java.util.concurrent.TimeoutException e) {
        idleLost++;
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (observer.convergedAt(NS_LATENCY, name) == 0 && System.nanoTime() < deadline) {
        Observer.sleep(5);
      }
    }
    // Loaded: N others are created at once; the changes are spread over the time they take to converge.
    TimedChanges loaded = loadedChanges(custom, names, "loaded", NS_LOAD, "load-", load, "create-at-once");
    // Restart: N others were created while the operator was down, so its first pass has their writes
    // to do; the changes are spread over that pass. Only the changes are news to the changed WebApps.
    stop(op);
    cleanup(NS_LOAD);
    List<String> waiting = names("waiting-", load);
    createWebApps(NS_LOAD, waiting, true);
    Operator restarted = startOperator("bench-latency-restart", Map.of());
    TimedChanges restart = loadedChanges(custom, names, "restart", NS_LOAD, null, load, "backlog");
    stop(restarted);
    cleanup(NS_LATENCY);
    cleanup(NS_LOAD);
    TimedChanges idle = new TimedChanges(idleMillis, 0, Double.NaN, idleLost);
    BenchResults.Latency result = new BenchResults.Latency(changes, idle.figure(), idle.p50(), idle.p99(), load,
        loaded.figure(), loaded.p50(), loaded.p99(), loaded.sentDuringLoad(), loaded.loadSeconds(),
        restart.figure(), restart.p50(), restart.p99(), restart.sentDuringLoad(), restart.loadSeconds(),
        idle.lost() + loaded.lost() + restart.lost());
    log.info("latency: idle p50 {} ms p99 {} ms; while {} converge p50 {} ms p99 {} ms ({} of {} changes sent "
            + "during the load); during a restart's pass over {} p50 {} ms p99 {} ms ({} sent during it); {} lost",
        result.idleP50(), result.idleP99(), load, result.loadedP50(), result.loadedP99(), loaded.sentDuringLoad(),
        changes, load, result.restartP50(), result.restartP99(), restart.sentDuringLoad(), result.lost());
    return result;
  }

  /** Spec-change latencies, and (under load) how the load went. */
  private record TimedChanges(List<Double> millis, int sentDuringLoad, double loadSeconds, int lost) {
    Figure figure() {
      return Figure.of("ms", millis);
    }

    double p50() {
      return Figure.round(Figure.percentile(millis.stream().sorted().toList(), 50));
    }

    double p99() {
      return Figure.round(Figure.percentile(millis.stream().sorted().toList(), 99));
    }
  }

  /**
   * Changes the image of each of {@code names} (converged WebApps in NS_LATENCY) while {@code load}
   * others converge in {@code loadNamespace}, the changes spread over 80 % of the time a run of
   * {@code referenceMode} took for that many. {@code createPrefix}: the others are created now, at
   * once; null: they exist already, and the operator has just started.
   */
  private TimedChanges loadedChanges(CustomObjectsApi custom, List<String> names, String tag, String loadNamespace,
      String createPrefix, int load, String referenceMode) throws Exception {
    int changes = names.size();
    Run reference = runs.values().stream().filter(r -> r.mode().equals(referenceMode) && r.n() == load
        && !r.timedOut()).findFirst().orElse(null);
    double expectedSeconds = reference != null ? reference.seconds() : Math.max(1, load / 100.0);
    long intervalNanos = (long) (expectedSeconds * 0.8e9 / changes);
    ExecutorService creator = Executors.newSingleThreadExecutor();
    ScheduledExecutorService patcher = Executors.newScheduledThreadPool(4);
    long loadStart = System.nanoTime();
    Future<Double> creating = createPrefix == null ? CompletableFuture.completedFuture(0.0)
        : creator.submit(() -> createWebApps(loadNamespace, names(createPrefix, load), true));
    List<CompletableFuture<Long>> seen = new ArrayList<>();
    long[] sentAt = new long[changes];
    for (int i = 0; i < changes; i++) {
      int index = i;
      String image = "registry.local/bench:" + tag + "-" + i;
      seen.add(observer.whenDeploymentImage(NS_LATENCY, names.get(i), image));
      patcher.schedule(() -> {
        sentAt[index] = System.nanoTime();
        patchImage(custom, names.get(index), image);
        return null;
      }, intervalNanos * i, TimeUnit.NANOSECONDS);
    }
    long loadDone = observer.awaitConverged(loadNamespace, load, convergeTimeout(load));
    creating.get(1, TimeUnit.MINUTES);
    List<Double> millis = new ArrayList<>();
    int lost = 0;
    long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    for (int i = 0; i < changes; i++) {
      try {
        long at = seen.get(i).get(Math.max(1, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS);
        millis.add((at - sentAt[i]) / 1e6);
      } catch (java.util.concurrent.TimeoutException e) {
        lost++;
      }
    }
    int duringLoad = 0;
    for (long sent : sentAt) {
      if (sent != 0 && loadDone > 0 && sent < loadDone) {
        duringLoad++;
      }
    }
    patcher.shutdownNow();
    creator.shutdownNow();
    return new TimedChanges(millis, duringLoad, loadDone > 0 ? Figure.round((loadDone - loadStart) / 1e9) : Double.NaN,
        lost);
  }

  private static void patchImage(CustomObjectsApi custom, String name, String image) throws ApiException {
    String body = "{\"spec\":{\"image\":\"" + image + "\"}}";
    PatchUtils.patch(WebApp.class, () -> custom.patchNamespacedCustomObject(WebApp.GROUP, WebApp.VERSION,
        NS_LATENCY, WebApp.PLURAL, name, new V1Patch(body)).buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, custom.getApiClient());
  }

  // ---- 7b. start-up with other JVM options, side by side ----------------------------------------

  /** Start-up with 0 WebApps under each variant's JVM options, the variants taking turns. */
  private void startupVariants(Map<String, List<String>> variants) throws Exception {
    if (variants.isEmpty()) {
      return;
    }
    Map<String, List<double[]>> samples = new LinkedHashMap<>();
    for (int k = 1; k <= settings.startupVariantRepeats(); k++) {
      int index = 0;
      for (Map.Entry<String, List<String>> variant : variants.entrySet()) {
        boolean plainJar = variant.getValue().contains("jar");
        boolean token = variant.getValue().contains("token");
        Map<String, String> mode = variant.getValue().contains("sharded") ? SHARDED : Map.of();
        List<String> options = variant.getValue().stream().filter(o -> !Set.of("jar", "token", "sharded").contains(o))
            .toList();
        Operator op = startOperator("bench-startup-v" + (index++) + "-" + k, mode, image != null && !plainJar,
            options, token ? podKubeconfig() : operatorKubeconfig);
        double cpu = ProcStats.cpuSeconds(op.process.pid());
        double[] memory = memory(op.process, true);
        samples.computeIfAbsent(variant.getKey(), key -> new ArrayList<>())
            .add(new double[] {op.secondsToReady, op.jvmReportedSeconds(), cpu, memory[3] / MIB, memory[2] / MIB});
        stop(op);
      }
    }
    samples.forEach((name, values) -> {
      results.startupVariants.add(new BenchResults.StartupVariant(name, String.join(" ", variants.get(name)),
          column(values, 0, "s"), column(values, 1, "s"), column(values, 2, "s"), column(values, 3, "MiB"),
          column(values, 4, "MiB")));
      log.info("start-up {}: {} s to readiness, {} s of CPU, idle RSS {} MiB", name,
          Figure.format(column(values, 0, "").median()), Figure.format(column(values, 2, "").median()),
          Figure.format(column(values, 3, "").median()));
    });
  }

  private static Figure column(List<double[]> rows, int index, String unit) {
    return Figure.of(unit, rows.stream().map(v -> v[index]).toList());
  }

  // ---- the operator process -----------------------------------------------------------------------

  private static final class Operator {
    final OperatorProcess process;
    final double secondsToReady;
    final long readyAt;
    final long leadingAt;

    Operator(OperatorProcess process, double secondsToReady, long readyAt, long leadingAt) {
      this.process = process;
      this.secondsToReady = secondsToReady;
      this.readyAt = readyAt;
      this.leadingAt = leadingAt;
    }

    /** "process running for" in Spring Boot's start-up line: the JVM's own uptime at the end of start-up. */
    double jvmReportedSeconds() {
      try {
        // The log file is appended to across runs with the same identity: the last start counts.
        Matcher m = JVM_STARTED.matcher(Files.readString(process.log()));
        double last = Double.NaN;
        while (m.find()) {
          last = Double.parseDouble(m.group(1));
        }
        return last;
      } catch (java.io.IOException e) {
        return Double.NaN;
      }
    }
  }

  /** Starts the jar and waits for readiness (caches synced) and for the Lease; the time to readiness. */
  private Operator startOperator(String identity, Map<String, String> extra) {
    return startOperator(identity, extra, image != null, List.of());
  }

  /**
   * Starts an operator with the settings' JVM options plus {@code extraJvmOptions}: as the image runs
   * it ({@code asImage}: the image's layout and ENTRYPOINT options), or as the plain jar.
   */
  private Operator startOperator(String identity, Map<String, String> extra, boolean asImage,
      List<String> extraJvmOptions) {
    return startOperator(identity, extra, asImage, extraJvmOptions, operatorKubeconfig);
  }

  private Operator startOperator(String identity, Map<String, String> extra, boolean asImage,
      List<String> extraJvmOptions, Path kubeconfig) {
    long spawn = System.nanoTime();
    OperatorProcess process = spawnOperator(identity, extra, asImage, extraJvmOptions, kubeconfig);
    long deadline = spawn + TimeUnit.SECONDS.toNanos(180);
    while (!process.isReady()) {
      requireRunning(process, deadline);
      Observer.sleep(25);
    }
    long ready = System.nanoTime();
    requireSharedArchive(process, asImage);
    boolean sharded = Boolean.parseBoolean(extra.get(SHARDING_ENABLED));
    while (!(sharded ? owningBuckets(process) : leading(process))) {
      if (System.nanoTime() > ready + TimeUnit.SECONDS.toNanos(60)) {
        String tail = process.logTail(40);
        process.close();
        throw new IllegalStateException("operator " + identity + " did not take " + (sharded ? "a bucket" : "the Lease")
            + ":\n" + tail);
      }
      Observer.sleep(20);
    }
    return new Operator(process, (ready - spawn) / 1e9, ready, System.nanoTime());
  }

  /**
   * Starts an operator as {@link #startOperator} does (the Lease in "default" unless {@code extra} says
   * otherwise) without waiting for it.
   */
  OperatorProcess spawnOperator(String identity, Map<String, String> extra, boolean asImage,
      List<String> extraJvmOptions) {
    return spawnOperator(identity, extra, asImage, extraJvmOptions, operatorKubeconfig);
  }

  private OperatorProcess spawnOperator(String identity, Map<String, String> extra, boolean asImage,
      List<String> extraJvmOptions, Path kubeconfig) {
    List<String> jvmOptions = new ArrayList<>(settings.jvmOptions());
    if (asImage) {
      jvmOptions.addAll(image.jvmOptions());
    }
    jvmOptions.addAll(jvmOptionsIn(extraJvmOptions)); // last, so that a variant may override the image's
    if (jvmOptions.stream().anyMatch(o -> o.startsWith("-XX:NativeMemoryTracking="))) {
      trackedOperators.add(identity);
    }
    Map<String, String> properties = new LinkedHashMap<>(settings.operatorProperties());
    properties.put("steward.leader-election.lease-namespace", "default");
    properties.putAll(extra);
    operatorCount++;
    return asImage
        ? OperatorProcess.start(kubeconfig, identity, image.app(), image.jar(), jvmOptions, properties,
            environmentIn(extraJvmOptions))
        : OperatorProcess.startPlainJar(kubeconfig, identity, jvmOptions, properties, environmentIn(extraJvmOptions));
  }

  /**
   * A kubeconfig with a ServiceAccount's bound token in a file, as a pod authenticates (the other
   * runs use a client certificate, whose private key client-java reads with BouncyCastle); the
   * account is bound to cluster-admin. Made on first use.
   */
  private Path podKubeconfig() throws ApiException {
    if (podKubeconfig == null) {
      String account = "steward-bench-pod";
      new CoreV1Api(admin).createNamespacedServiceAccount("default",
          new V1ServiceAccount().metadata(new V1ObjectMeta().name(account))).execute();
      new RbacAuthorizationV1Api(admin).createClusterRoleBinding(new V1ClusterRoleBinding()
          .metadata(new V1ObjectMeta().name(account))
          .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("ClusterRole").name("cluster-admin"))
          .subjects(List.of(new RbacV1Subject().kind("ServiceAccount").name(account).namespace("default"))))
          .execute();
      podKubeconfig = new ServiceAccountAccess(admin, "default", account).writeKubeconfig(cluster,
          settings.output().resolve("pod.kubeconfig").toAbsolutePath());
    }
    return podKubeconfig;
  }

  /** The words of a JVM variant that are JVM options, not environment variables. */
  static List<String> jvmOptionsIn(List<String> variant) {
    return variant.stream().filter(word -> !ENVIRONMENT_VARIABLE.matcher(word).matches()).toList();
  }

  /** The environment variables a JVM variant sets (NAME=value), in its order. */
  static Map<String, String> environmentIn(List<String> variant) {
    Map<String, String> environment = new LinkedHashMap<>();
    for (String word : variant) {
      Matcher variable = ENVIRONMENT_VARIABLE.matcher(word);
      if (variable.matches()) {
        environment.put(variable.group(1), variable.group(2));
      }
    }
    return environment;
  }

  /** Whether operators run as the image does (its layout and class-data-sharing archive). */
  boolean asImage() {
    return image != null;
  }

  /** Fails, stopping the operator, if it exited or {@code deadline} (System.nanoTime()) passed. */
  static void requireRunning(OperatorProcess process, long deadline) {
    if (!process.isAlive() || System.nanoTime() > deadline) {
      String tail = process.logTail(40);
      process.close();
      throw new IllegalStateException("operator " + process.identity() + " did not become ready:\n" + tail);
    }
  }

  /** Fails, stopping the operator, if it runs as the image but could not map the image's archive. */
  static void requireSharedArchive(OperatorProcess process, boolean asImage) {
    if (asImage && process.logTail(400).contains("Unable to use shared archive")) {
      process.close();
      throw new IllegalStateException("operator " + process.identity() + " started without the image's "
          + "class-data-sharing archive: " + process.logTail(400).lines().filter(l -> l.contains("shared archive"))
          .toList());
    }
  }

  private static boolean owningBuckets(OperatorProcess process) {
    HttpResponse<String> response = process.actuator("shards");
    return response != null && response.statusCode() == 200 && !response.body().contains("\"owned\":[]");
  }

  private static boolean leading(OperatorProcess process) {
    HttpResponse<String> response = process.actuator("leader");
    return response != null && response.statusCode() == 200 && response.body().contains("\"leading\":true");
  }

  /** SIGTERM: the operator releases the Lease, so the next one leads at once. */
  private void stop(Operator op) {
    int code = op.process.terminate();
    if (code != 0) {
      results.notes.add("operator " + op.process.identity() + " exited with " + code);
    }
  }

  private RequestCounts requestsBy(OperatorProcess op, long mark) {
    Observer.sleep(500); // the audit log is written when a request completes
    String agent = op.userAgent();
    return RequestCounts.of(audit.entriesAfter(mark, e -> agent.equals(e.userAgent())));
  }

  /** {RSS, used heap, live heap after a full GC, RSS after it}, bytes. */
  double[] memory(OperatorProcess op, boolean collect) {
    double rss = ProcStats.rssBytes(op.pid());
    double heap = heapUsed(op);
    if (!collect) {
      return new double[] {rss, heap, Double.NaN, Double.NaN};
    }
    String out = ProcStats.run("jcmd", Long.toString(op.pid()), "GC.run");
    if (out == null) {
      results.notes.add("jcmd GC.run failed for " + op.identity());
    }
    Observer.sleep(200);
    if (trackedOperators.contains(op.identity())) {
      // Where the memory outside the heap goes, for tuning: target/bench/nmt-<identity>.txt
      String nmt = ProcStats.run("jcmd", Long.toString(op.pid()), "VM.native_memory", "summary");
      String histogram = ProcStats.run("jcmd", Long.toString(op.pid()), "GC.class_histogram");
      if (histogram != null) {
        nmt = nmt + "\n" + String.join("\n", histogram.lines().limit(60).toList());
      }
      nmt = nmt + "\n\nThreads by pool:\n" + threadsByPool(ProcStats.run("jcmd", Long.toString(op.pid()),
          "Thread.print"));
      try {
        Files.writeString(settings.output().resolve("nmt-" + op.identity() + "-" + (nmtCount++) + ".txt"),
            "RSS " + ProcStats.rssBytes(op.pid()) + "\n" + nmt);
      } catch (java.io.IOException e) {
        results.notes.add("could not write the NMT summary: " + e);
      }
    }
    return new double[] {rss, heap, heapUsed(op), ProcStats.rssBytes(op.pid())};
  }

  /** Thread counts by name with the numbers taken out (a pool's threads share one line), most first. */
  static String threadsByPool(String threadDump) {
    if (threadDump == null) {
      return "(jcmd Thread.print failed)\n";
    }
    Map<String, Integer> pools = new LinkedHashMap<>();
    threadDump.lines().map(THREAD_NAME::matcher).filter(Matcher::find)
        .forEach(m -> pools.merge(m.group(1).replaceAll("\\d+", "#"), 1, Integer::sum));
    StringBuilder out = new StringBuilder();
    pools.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .forEach(e -> out.append(String.format("%4d %s%n", e.getValue(), e.getKey())));
    return out.append(String.format("%4d in all%n", pools.values().stream().mapToInt(Integer::intValue).sum()))
        .toString();
  }

  /** Sum of jvm_memory_used_bytes{area="heap"} from /actuator/prometheus. */
  private static double heapUsed(OperatorProcess op) {
    HttpResponse<String> response = op.actuator("prometheus");
    if (response == null || response.statusCode() != 200) {
      return Double.NaN;
    }
    double sum = 0;
    for (String line : response.body().split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  // ---- objects ------------------------------------------------------------------------------------

  static List<String> names(String prefix, int count) {
    List<String> names = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      names.add(prefix + i);
    }
    return names;
  }

  /** Creates the WebApps from {@code creators} threads; the seconds it took. */
  double createWebApps(String namespace, List<String> names, boolean withPort) throws Exception {
    WebApps webApps = new WebApps(admin, namespace);
    WebAppSpec spec = WebApps.spec("nginx:1.27", 1, withPort ? 8080 : null);
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(names);
    ExecutorService pool = Executors.newFixedThreadPool(settings.creators());
    long t0 = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < settings.creators(); i++) {
      futures.add(pool.submit(() -> {
        for (String name = queue.poll(); name != null; name = queue.poll()) {
          for (int attempt = 0; ; attempt++) {
            var response = webApps.tryCreate(name, spec);
            if (response.isSuccess() || response.getHttpStatusCode() == 409) {
              break;
            }
            if (attempt >= 5) {
              throw new IllegalStateException("creating WebApp " + name + ": HTTP " + response.getHttpStatusCode());
            }
            Observer.sleep(200);
          }
        }
        return null;
      }));
    }
    try {
      for (Future<?> f : futures) {
        f.get(10, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Empties a namespace of WebApps, Deployments, Services and Events (no garbage collector runs here). */
  void cleanup(String namespace) throws Exception {
    CustomObjectsApi custom = new CustomObjectsApi(admin);
    AppsV1Api apps = new AppsV1Api(admin);
    CoreV1Api core = new CoreV1Api(admin);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (true) {
      try {
        custom.deleteCollectionNamespacedCustomObject(WebApp.GROUP, WebApp.VERSION, namespace, WebApp.PLURAL).execute();
        apps.deleteCollectionNamespacedDeployment(namespace).execute();
        core.deleteCollectionNamespacedService(namespace).execute();
        core.deleteCollectionNamespacedEvent(namespace).execute();
      } catch (ApiException e) {
        log.debug("deletecollection in {}: HTTP {}", namespace, e.getCode());
      }
      Object webApps = custom.listNamespacedCustomObject(WebApp.GROUP, WebApp.VERSION, namespace, WebApp.PLURAL)
          .limit(1).execute();
      boolean empty = webApps instanceof Map<?, ?> list && list.get("items") instanceof List<?> items && items.isEmpty()
          && apps.listNamespacedDeployment(namespace).limit(1).execute().getItems().isEmpty()
          && core.listNamespacedService(namespace).limit(1).execute().getItems().isEmpty();
      if (empty) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("could not empty namespace " + namespace + " within 5 minutes");
      }
      Observer.sleep(500);
    }
    Observer.sleep(500); // let the deletions reach the observer before it forgets the namespace
    observer.forget(namespace);
  }

  // ---- context ------------------------------------------------------------------------------------

  private void describeMachineAndSettings() {
    results.machine.put("nproc", Runtime.getRuntime().availableProcessors());
    results.machine.put("memoryGiB", Figure.round(ProcStats.memTotalBytes() / (1024.0 * MIB)));
    results.machine.put("cpu", ProcStats.cpuModel());
    results.machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    results.machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    results.machine.put("kubernetes", System.getProperty("steward.controlplane.release", "v1.37.2")
        + " (local API-shape cluster: etcd + kube-apiserver with audit log, on the same machine)");
    results.machine.put("loadAverageAtStart", ProcStats.loadAverage());
    results.settings.put("mode", settings.mode());
    results.settings.put("operatorJvmOptions", String.join(" ", settings.jvmOptions()));
    results.settings.put("operatorLayout", image == null ? "the plain jar (java -jar)"
        : "the image's (Dockerfile carried out here): " + String.join(" ", ContainerImage.read().entrypoint()));
    results.settings.put("operatorProperties", settings.operatorProperties());
    results.settings.put("workers", settings.workers());
    results.settings.put("pairedCeilingConcurrency", settings.pairedConcurrency());
    results.settings.put("sizes", settings.sizes());
    results.settings.put("backlogSizes", settings.backlogSizes());
    results.settings.put("repeats", settings.repeats() + " for N <= " + settings.repeatUpTo() + ", else 1");
    results.settings.put("ceilingSize", settings.ceilingSize());
    results.settings.put("ceilingConcurrencies", settings.ceilingConcurrencies());
    results.settings.put("latencyChanges", settings.latencyChanges());
    results.settings.put("latencyLoad", settings.latencyLoad());
    results.settings.put("creatorThreads", settings.creators());
    results.settings.put("steadyStateResyncPeriod", settings.resyncPeriod());
    results.settings.put("scalingSizes", settings.scalingSizes());
    results.settings.put("scalingShardedReplicas", settings.scalingReplicas());
    results.settings.put("scalingLabelledReplicas", settings.scalingLabelledReplicas());
    results.settings.put("scalingRestSeconds", settings.scalingRestSeconds());
    results.settings.put("only", settings.everySection() ? "every section" : settings.only());
  }

  private void recordControlPlane() {
    for (var component : cluster.components()) {
      if (component.isRunning()) {
        results.controlPlane.put(component.name() + "RssMiB", Figure.round(ProcStats.rssBytes(component.pid()) / MIB));
        results.controlPlane.put(component.name() + "CpuSeconds", Figure.round(ProcStats.cpuSeconds(component.pid())));
      }
    }
    results.controlPlane.put("auditLogMiB", Figure.round(audit.size() / MIB));
    results.controlPlane.put("operatorsStarted", operatorCount);
  }

  private static Duration parseDuration(String spring) {
    Matcher m = Pattern.compile("(\\d+)(ms|s|m|h)").matcher(spring.trim());
    if (!m.matches()) {
      return Duration.parse(spring);
    }
    long v = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(v);
      case "s" -> Duration.ofSeconds(v);
      case "m" -> Duration.ofMinutes(v);
      default -> Duration.ofHours(v);
    };
  }
}
