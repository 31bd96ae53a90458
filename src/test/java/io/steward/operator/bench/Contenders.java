package io.steward.operator.bench;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Service;
import io.steward.operator.support.GoTool;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.DeploymentResource;
import io.steward.operator.webapp.ServiceResource;
import io.steward.operator.webapp.WebAppStatusCalculator;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.AuditLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmark's contenders (issue 17), in the same invocation and on the same cluster as Steward:
 * the physical limit (src/test/contenders' client-go writer sending exactly Steward's three objects
 * per WebApp, no client-side rate limiter, protobuf for built-in types, over a sweep of goroutine
 * counts) and a controller-runtime 0.25 operator as a kubebuilder user writes it, converging the same
 * N as Steward's runs in both scenarios. Both are one Go binary built from Go modules on first use.
 */
final class Contenders {
  private static final Logger log = LoggerFactory.getLogger(Contenders.class);
  private static final String USER = "steward-contender";
  private static final double MIB = 1024 * 1024;
  private final StewardBenchmark bench;
  private final BenchSettings settings;
  private final Path logs;
  private Path binary;
  private Path kubeconfig;
  private final List<ContenderMath.WriterRun> writerRuns = new ArrayList<>();
  private final List<ContenderMath.Sample> samples = new ArrayList<>();
  private final List<String> shapeDifferences = new ArrayList<>();
  private int started;

  Contenders(StewardBenchmark bench) {
    this.bench = bench;
    this.settings = bench.settings;
    this.logs = settings.output().resolve("contenders");
  }

  /**
   * Repeated as Steward's runs of the same N are: the Go writer's sweep, then the controller-runtime
   * operator created at once and with a backlog.
   */
  void run() throws Exception {
    Files.createDirectories(logs);
    binary = GoTool.build("src/test/contenders/build.sh", "the benchmark's contenders");
    kubeconfig = bench.cluster.kubeconfigFor(USER);
    int n = settings.contenderSize();
    for (int r = 1; r <= settings.repeatsFor(n); r++) {
      for (int concurrency : settings.contenderConcurrencies()) {
        writerRuns.add(writer(concurrency, settings.ceilingSize(), r));
      }
      if (n > 0) {
        samples.addAll(controllerRuntimeCreatedAtOnce(n, r));
        samples.add(controllerRuntimeBacklog(n, r));
      }
    }
  }

  /** With Steward's own samples and convergence rows, once every run is done. */
  BenchResults.Contenders summarize(List<ContenderMath.Sample> steward, List<BenchResults.Convergence> convergence) {
    List<ContenderMath.Sample> all = new ArrayList<>(steward.stream()
        .filter(s -> s.n() == settings.contenderSize()).toList());
    all.addAll(samples);
    List<BenchResults.ContenderRun> runs = ContenderMath.summarize(all);
    List<BenchResults.GoCeilingRun> sweep = ContenderMath.sweep(writerRuns);
    BenchResults.GoCeilingRun best = ContenderMath.best(sweep);
    return new BenchResults.Contenders(sweep, best, runs, ContenderMath.ratios(runs, convergence, best),
        shapeDifferences);
  }

  // ---- the Go ceiling -----------------------------------------------------------------------------

  private ContenderMath.WriterRun writer(int concurrency, int count, int repeat) throws Exception {
    String ns = StewardBenchmark.NS_CEILING;
    bench.createWebApps(ns, StewardBenchmark.names("go-c" + concurrency + "-r" + repeat + "-", count), true);
    String agent = "steward-contender-writer/c" + concurrency + "-r" + repeat;
    long mark = bench.audit.size();
    Map<String, Double> before = bench.controlPlaneCpu();
    Path out = logs.resolve("writer-c" + concurrency + "-r" + repeat + ".out");
    GuardedProcess writer = GuardedProcess.start(List.of(binary.toString(), "writer", "--kubeconfig",
        kubeconfig.toString(), "--namespace", ns, "--concurrency", Integer.toString(concurrency), "--user-agent", agent),
        out, logs.resolve("writer-c" + concurrency + "-r" + repeat + ".log"));
    int code = writer.waitFor(TimeUnit.MINUTES.toSeconds(10));
    Map<String, Double> after = bench.controlPlaneCpu();
    if (code != 0) {
      throw new IllegalStateException("the Go writer exited with " + code + ": " + writer.logTail());
    }
    ContenderMath.WriterLine line = ContenderMath.parseWriter(Files.readString(out));
    after.put("writer", line.cpuSeconds());
    RequestCounts requests = requestsBy(agent, mark);
    if (line.failed() > 0) {
      bench.results.notes.add("Go writer at " + concurrency + " goroutines: " + line.failed() + " failed requests, first: "
          + line.firstError());
    }
    if (writerRuns.isEmpty()) {
      checkShape("client-go writer", ns, first(ns));
    }
    bench.cleanup(ns);
    ContenderMath.WriterRun run = new ContenderMath.WriterRun(line, requests.ownedWritesPer(line.webApps()),
        ContenderMath.cpuMillisPerWebApp(before, after, line.webApps()));
    log.info("Go writer, {} goroutines, {} WebApps, #{}: {} WebApps/s, {} writes/WebApp, CPU ms/WebApp {}",
        concurrency, line.webApps(), repeat, Figure.format(line.webAppsPerSecond()),
        Figure.format(run.writesPerWebApp()), Figure.rounded(run.cpuMillisPerWebApp()));
    return run;
  }

  // ---- the controller-runtime operator ------------------------------------------------------------

  /** Created at once, then a second burst for the same process (as Steward's runs at this N). */
  private List<ContenderMath.Sample> controllerRuntimeCreatedAtOnce(int n, int repeat) throws Exception {
    String id = "cr-n" + n + "-at-once-r" + repeat;
    GuardedProcess operator = startOperator(id);
    try {
      awaitLeading(operator, id);
      long mark = bench.audit.size();
      Map<String, Double> before = bench.controlPlaneCpu();
      before.put("operator", operator.cpuSeconds());
      List<String> names = StewardBenchmark.names(id + "-", n);
      long t0 = System.nanoTime();
      bench.createWebApps(StewardBenchmark.NS_RUN, names, true);
      ContenderMath.Sample first = finish(id, "create-at-once", n, repeat, names, t0, t0, operator, mark, before);
      String agent = agent(id);
      ContenderMath.Sample second = first.timedOut() ? null : bench.secondBurst(ContenderMath.CONTROLLER_RUNTIME, id,
          n, operator::cpuSeconds, () -> settle(agent, bench.audit.size()), since -> requestsBy(agent, since),
          operator::peakRssBytes);
      return second == null ? List.of(first) : List.of(first, second);
    } finally {
      stop(operator);
      bench.cleanup(StewardBenchmark.NS_RUN);
    }
  }

  private ContenderMath.Sample controllerRuntimeBacklog(int n, int repeat) throws Exception {
    String id = "cr-n" + n + "-backlog-r" + repeat;
    List<String> names = StewardBenchmark.names(id + "-", n);
    bench.createWebApps(StewardBenchmark.NS_RUN, names, true);
    long mark = bench.audit.size();
    Map<String, Double> before = bench.controlPlaneCpu();
    long spawned = System.nanoTime();
    GuardedProcess operator = startOperator(id);
    try {
      long leading = awaitLeading(operator, id);
      return finish(id, "backlog", n, repeat, names, spawned, leading, operator, mark, before);
    } finally {
      stop(operator);
      bench.cleanup(StewardBenchmark.NS_RUN);
    }
  }

  /**
   * Waits for convergence, then until the operator has written nothing for 2 s, and measures.
   * {@code start}: when the operator was started (backlog) or the first create (created at once);
   * {@code curveStart}: where its curve starts, as Steward's (readiness and leadership for a backlog).
   */
  private ContenderMath.Sample finish(String id, String mode, int n, int repeat, List<String> names, long start,
      long curveStart,
      GuardedProcess operator, long mark, Map<String, Double> before) throws Exception {
    String agent = agent(id);
    long done = bench.observer.awaitConverged(StewardBenchmark.NS_RUN, n, StewardBenchmark.convergeTimeout(n));
    boolean timedOut = done < 0;
    if (timedOut) {
      bench.results.notes.add("controller-runtime " + mode + " N=" + n + " #" + repeat + " timed out with "
          + bench.observer.convergedIn(StewardBenchmark.NS_RUN) + " converged");
    }
    bench.results.curves.add(new BenchResults.Curve("controller-runtime, " + mode, n, repeat, Double.NaN,
        bench.curve(names, curveStart)));
    settle(agent, mark);
    Map<String, Double> after = bench.controlPlaneCpu();
    after.put("operator", operator.cpuSeconds());
    if (mode.equals("backlog")) {
      before.put("operator", 0.0); // from the process start, as for Steward's backlog
    }
    double peak = operator.peakRssBytes();
    RequestCounts requests = requestsBy(agent, mark);
    if (mode.equals("create-at-once") && repeat == 1) {
      checkShape("controller-runtime", StewardBenchmark.NS_RUN, first(StewardBenchmark.NS_RUN));
    }
    ContenderMath.Sample sample = bench.sample(ContenderMath.CONTROLLER_RUNTIME, mode, n, names, start, before, after,
        peak, requests, timedOut);
    log.info("controller-runtime {} N={} #{}: {} s first→all ({} WebApps/s), start→first {} s, {} writes/WebApp, "
            + "{} GETs, {} conflicts, CPU ms/WebApp {}, peak RSS {} MiB", mode, n, repeat,
        Figure.format(sample.span().seconds()), Figure.format(sample.span().webAppsPerSecond()),
        Figure.format(sample.startToFirstSeconds()),
        Figure.format(requests.ownedWritesPer(n)), requests.gets(), requests.conflicts(),
        Figure.rounded(sample.cpuMillisPerWebApp()), Figure.format(peak / MIB));
    return sample;
  }

  private GuardedProcess startOperator(String id) throws IOException {
    started++;
    return GuardedProcess.start(List.of(binary.toString(), "operator", "--kubeconfig", kubeconfig.toString(),
        "--workers", Integer.toString(settings.workers()), "--user-agent", agent(id),
        "--leader-election-id", "contender-" + id + "-" + started), null, logs.resolve(id + ".log"));
  }

  private static String agent(String id) {
    return "steward-contender/" + id;
  }

  /** Waits for the line the operator prints once it leads (its controller starts then); returns when. */
  private static long awaitLeading(GuardedProcess operator, String id) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!operator.logContains("contenders: leading")) {
      if (!operator.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("controller-runtime operator " + id + " did not start: " + operator.logTail());
      }
      Observer.sleep(20);
    }
    return System.nanoTime();
  }

  /** Until the agent has sent nothing for 2 s (at most 60 s): late writes (retries, stale caches) count too. */
  private void settle(String agent, long mark) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int last = -1;
    while (System.nanoTime() < deadline) {
      Observer.sleep(2000);
      int now = bench.audit.entriesAfter(mark, e -> agent.equals(e.userAgent())).size();
      if (now == last) {
        return;
      }
      last = now;
    }
  }

  private void stop(GuardedProcess operator) {
    int code = operator.stop();
    if (code != 0) {
      bench.results.notes.add("a controller-runtime operator exited with " + code);
    }
  }

  private RequestCounts requestsBy(String agent, long mark) {
    Observer.sleep(500); // the audit log is written when a request completes
    return RequestCounts.of(bench.audit.entriesAfter(mark, (AuditLog.Entry e) -> agent.equals(e.userAgent())));
  }

  // ---- the shape of what they write ---------------------------------------------------------------

  private WebApp first(String namespace) throws Exception {
    return new WebApps(bench.admin, namespace).list().stream().findFirst().orElse(null);
  }

  /**
   * Compares a contender's Deployment, Service and status for {@code webApp} with what Steward's own
   * classes make of the same WebApp; differences go to the results.
   */
  private void checkShape(String contender, String namespace, WebApp webApp) throws Exception {
    if (webApp == null) {
      shapeDifferences.add(contender + ": no WebApp to compare");
      return;
    }
    String name = webApp.getMetadata().getName();
    ApiClient admin = bench.admin;
    Gson gson = admin.getJSON().getGson();
    V1Deployment deployment = new AppsV1Api(admin).readNamespacedDeployment(name, namespace).execute();
    V1Service service = new CoreV1Api(admin).readNamespacedService(name, namespace).execute();
    List<String> found = new ArrayList<>();
    found.addAll(ContenderMath.differences("Deployment", shape(gson.toJsonTree(new DeploymentResource().desired(webApp))),
        shape(gson.toJsonTree(deployment))));
    found.addAll(ContenderMath.differences("Service", shape(gson.toJsonTree(new ServiceResource().desired(webApp))),
        shape(gson.toJsonTree(service))));
    // The status Steward computes from the same observation; its conditions keep the contender's
    // transition times unless a status flips, so equal shapes compare equal.
    JsonElement wanted = gson.toJsonTree(new WebAppStatusCalculator().compute(
        new WebAppStatusCalculator.Observation(webApp, deployment, service, null),
        OffsetDateTime.now(ZoneOffset.UTC)));
    found.addAll(ContenderMath.differences("status", withoutTimes(wanted), withoutTimes(gson.toJsonTree(
        webApp.getStatus()))));
    found.forEach(d -> shapeDifferences.add(contender + ": " + d));
    if (!found.isEmpty()) {
      log.warn("{} writes other objects than Steward: {}", contender, found);
    }
  }

  /** Labels, owner references and spec: what the comparison is about (the server adds the rest). */
  private static JsonElement shape(JsonElement object) {
    JsonObject o = object.getAsJsonObject();
    JsonObject metadata = o.getAsJsonObject("metadata");
    JsonObject shape = new JsonObject();
    JsonObject meta = new JsonObject();
    meta.add("labels", metadata.get("labels"));
    meta.add("ownerReferences", metadata.get("ownerReferences"));
    shape.add("metadata", meta);
    shape.add("spec", o.get("spec"));
    return shape;
  }

  private static JsonElement withoutTimes(JsonElement status) {
    JsonElement copy = status.deepCopy();
    if (copy.isJsonObject() && copy.getAsJsonObject().has("conditions")) {
      copy.getAsJsonObject().getAsJsonArray("conditions")
          .forEach(c -> c.getAsJsonObject().remove("lastTransitionTime"));
    }
    return copy;
  }

  /**
   * A contender under {@link OperatorProcess#GUARD}, so it cannot outlive this JVM; CPU and memory are
   * read from the command itself, not the shell.
   */
  private static final class GuardedProcess {
    private final Process shell;
    private final Path log;

    private GuardedProcess(Process shell, Path log) {
      this.shell = shell;
      this.log = log;
    }

    /** {@code stdout}: where its standard output goes (null: into the log with its standard error). */
    static GuardedProcess start(List<String> command, Path stdout, Path log) throws IOException {
      List<String> full = new ArrayList<>(List.of("bash", "-c", OperatorProcess.GUARD, "contender"));
      full.addAll(command);
      ProcessBuilder builder = new ProcessBuilder(full).redirectError(log.toFile());
      builder.redirectOutput(stdout == null ? ProcessBuilder.Redirect.appendTo(log.toFile()) : ProcessBuilder.Redirect.to(
          stdout.toFile()));
      if (stdout == null) {
        builder.redirectErrorStream(true);
      }
      return new GuardedProcess(builder.start(), log);
    }

    private Optional<ProcessHandle> command() {
      return shell.children().findFirst();
    }

    boolean isAlive() {
      return shell.isAlive();
    }

    double cpuSeconds() {
      return command().map(p -> ProcStats.cpuSeconds(p.pid())).orElse(Double.NaN);
    }

    double peakRssBytes() {
      return command().map(p -> (double) ProcStats.peakRssBytes(p.pid())).orElse(Double.NaN);
    }

    boolean logContains(String text) {
      try {
        return Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(text);
      } catch (IOException e) {
        return false;
      }
    }

    String logTail() {
      try {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }

    int waitFor(long seconds) throws InterruptedException {
      if (!shell.waitFor(seconds, TimeUnit.SECONDS)) {
        stop();
        throw new IllegalStateException("a contender did not finish within " + seconds + " s: " + logTail());
      }
      closeGuard();
      return shell.exitValue();
    }

    /** SIGTERM to the command, then up to 20 s for it to end; its exit code (-1 if it had to be killed). */
    int stop() {
      command().ifPresent(ProcessHandle::destroy);
      try {
        if (!shell.waitFor(20, TimeUnit.SECONDS)) {
          shell.descendants().forEach(ProcessHandle::destroyForcibly);
          shell.destroyForcibly();
          shell.waitFor(10, TimeUnit.SECONDS);
          return -1;
        }
        return shell.exitValue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return -1;
      } finally {
        closeGuard();
      }
    }

    /** Ends the guard's watcher (it waits for this end of its stdin to close). */
    private void closeGuard() {
      try {
        shell.getOutputStream().close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
