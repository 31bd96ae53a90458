package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.steward.operator.reliability.ReliabilityReport;
import io.steward.operator.support.EnvLimits;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec.EnvVar;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Memory: WebApps of the largest size the CRD allows (the most env entries, each a reference, filling
 * the env size rule exactly; the longest image and readiness path), watched by one replica run as the
 * chart runs it (its JVM options, the container's memory limit as all the RAM there is, exit on
 * OutOfMemoryError). The API server must accept that spec and refuse it with one character more, so
 * the test follows the CRD. Every WebApp's strings are its own, as real WebApps' are, so nothing is
 * shared that would not be. The replica must converge them all without running out of memory, and
 * its longest GC pause must stay far below the renew deadline. With {@code -Preliability} only;
 * {@code -Dsteward.memory.webapps=N} runs N instead of 5,000, for a shorter look (the report names N);
 * {@code -Dsteward.memory.jvmOptions=...} replaces the chart's {@code jvm.options}, to compare collectors.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class LargestWebAppsMemoryIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final int WEBAPPS = Integer.getInteger("steward.memory.webapps", 5_000);
  /** The chart's {@code jvm.options} for this run; null for the chart's default. */
  private static final String JVM_OPTIONS = System.getProperty("steward.memory.jvmOptions");
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final String SCENARIO = "memory, largest WebApps the CRD allows (chart: 512Mi limit)";
  /** A pause of the operator's own: not one a heap histogram (a diagnosis, from outside) caused. */
  private static final Pattern PAUSE = Pattern.compile("Pause(?![^\\n]*Heap Inspection)[^\\n]*?([0-9.]+)ms\\s*$",
      Pattern.MULTILINE);
  private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("^Total\\s+\\d+\\s+(\\d+)");
  private static final Pattern HEAP_MAX = Pattern.compile("Heap Max Capacity: (\\S+)");

  @Test
  void theLargestWebAppsFitTheChartsMemoryLimit(LocalCluster cluster, TestNamespace namespace) throws Exception {
    Assumptions.assumeTrue(FULL, "tens of minutes on two cores: runs with -Preliability only");
    String ns = namespace.name();
    // The chart's own lease settings: this is about memory, not about a short renew deadline on a busy machine.
    RenderedChart chart = RenderedChart.installWithoutItsDeployment(cluster, ns, Set.of(),
        JVM_OPTIONS == null ? Map.of() : Map.of("jvm", Map.of("options", JVM_OPTIONS)));
    Path gcLog = Path.of("target", "deploy-it", ns, "gc.log").toAbsolutePath();
    Files.createDirectories(gcLog.getParent());
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    int size = cluster.adminClient().getJSON().serialize(largestSpec("w0")).length();
    assertTheSchemaAdmitsNoMore(webApps);

    try (OperatorProcess replica = chart.startReplica(cluster, "steward-7c6d5b8f9-mem0",
        List.of("--steward.resync-period=2m"), List.of("-Xlog:gc,gc+init,gc+cpu:file=" + gcLog))) {
      await().atMost(ChartEndToEnd.START).until(replica::isReady);
      Instant start = Instant.now();
      ExecutorService writers = Executors.newFixedThreadPool(4);
      List<Future<?>> created = new ArrayList<>();
      for (int i = 0; i < WEBAPPS; i++) {
        String name = "largest-" + i;
        String tag = "w" + i;
        // Keeps no WebApp: the test JVM would otherwise hold all of them.
        created.add(writers.submit(() -> {
          webApps.create(name, largestSpec(tag));
          return null;
        }));
      }
      for (Future<?> future : created) {
        future.get();
      }
      writers.shutdown();
      AppsV1Api apps = new AppsV1Api(cluster.adminClient());
      await().atMost(Duration.ofMinutes(40)).pollInterval(Duration.ofSeconds(5))
          .until(() -> !replica.isRunning() || apps.listNamespacedDeployment(ns).execute().getItems().size() >= WEBAPPS);
      assertThat(replica.isRunning()).as("the replica exited: %s", exitCause(replica.log())).isTrue();
      Duration converged = Duration.between(start, Instant.now());
      // A couple of resyncs over all of them, the steady state a large installation lives in.
      Thread.sleep(Duration.ofMinutes(4).toMillis());
      assertThat(replica.isRunning()).as("the replica exited: %s", exitCause(replica.log())).isTrue();
      long peakRss = peakRssKib(replica.pid());
      double maxPause = maxPauseMillis(gcLog);
      REPORT.record(SCENARIO, "WebApps / bytes of each spec as JSON", WEBAPPS + " / " + size);
      REPORT.record(SCENARIO, "chart's jvm.options", JVM_OPTIONS == null ? "(default)" : JVM_OPTIONS);
      REPORT.record(SCENARIO, "created to every Deployment written, s", converged.toMillis() / 1000.0);
      REPORT.record(SCENARIO, "peak RSS, MiB (limit 512)", peakRss / 1024);
      REPORT.record(SCENARIO, "longest GC pause, ms", maxPause);
      // Last, because the histogram's full collection is a pause of its own.
      REPORT.record(SCENARIO, "live heap after a full GC, MiB (max " + maxHeapMib(gcLog) + ")",
          liveHeapMib(replica.pid(), gcLog.resolveSibling("histogram.txt")));
      assertThat(peakRss).as("peak RSS, KiB").isLessThan(512 * 1024);
      assertThat(maxPause).as("longest GC pause, ms (the chart's renew deadline is 10 s)").isLessThan(1_000);
    } finally {
      REPORT.write(Path.of("target", "reliability"));
    }
  }

  /**
   * The largest spec the schema admits: the longest image, readiness path and the largest env (see
   * {@link EnvLimits#largest}), with {@code tag} in every string of its own.
   */
  static WebAppSpec largestSpec(String tag) {
    EnvLimits limits = EnvLimits.fromCrd();
    return largestSpec(tag, limits.largest(limits.maxCharacters(), tag));
  }

  private static WebAppSpec largestSpec(String tag, List<EnvVar> env) {
    String registry = "registry.example.com/" + tag + "/";
    String image = registry + "a".repeat(512 - registry.length() - ":1".length()) + ":1";
    String readinessPath = "/" + tag + "/" + "p".repeat(1024 - tag.length() - 2);
    return new WebAppSpec(image, 0, 80, null, env, null, readinessPath, null);
  }

  /** The API server takes the largest spec and refuses one more character of env, naming the field. */
  private static void assertTheSchemaAdmitsNoMore(WebApps webApps) throws ApiException {
    EnvLimits limits = EnvLimits.fromCrd();
    String tag = "probe";
    KubernetesApiResponse<WebApp> over = webApps.tryCreate("largest-over",
        largestSpec(tag, limits.largest(limits.maxCharacters() + 1, tag)));
    assertThat(over.getHttpStatusCode()).as("one character over the env rule").isEqualTo(422);
    assertThat(over.getStatus().getMessage()).contains("spec.env").contains(Integer.toString(limits.maxCharacters()));
    KubernetesApiResponse<WebApp> largest = webApps.tryCreate("largest-probe", largestSpec(tag));
    assertThat(largest.isSuccess()).as("the largest spec: %s", largest.getStatus()).isTrue();
    webApps.delete("largest-probe");
  }

  /** Why a replica stopped, from its log: an OutOfMemoryError, or else its first ERROR line (the cause, not its echoes). */
  private static String exitCause(Path log) throws Exception {
    String firstError = null;
    for (String line : Files.readAllLines(log)) {
      if (line.contains("java.lang.OutOfMemoryError")) {
        return "out of memory: " + line;
      }
      if (firstError == null && line.contains(" ERROR ")) {
        firstError = line;
      }
    }
    return firstError != null ? firstError : "no OutOfMemoryError and no ERROR line in " + log;
  }

  private static long peakRssKib(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmHWM in /proc/" + pid + "/status");
  }

  /** The heap's live objects after the full collection that {@code jcmd GC.class_histogram} makes; the histogram is kept. */
  private static long liveHeapMib(long pid, Path histogram) throws Exception {
    Process jcmd = new ProcessBuilder("jcmd", Long.toString(pid), "GC.class_histogram").redirectErrorStream(true)
        .redirectOutput(histogram.toFile()).start();
    assertThat(jcmd.waitFor(2, TimeUnit.MINUTES)).as("jcmd GC.class_histogram").isTrue();
    List<String> lines = Files.readAllLines(histogram);
    for (int i = lines.size() - 1; i >= 0; i--) {
      Matcher total = HISTOGRAM_TOTAL.matcher(lines.get(i));
      if (total.find()) {
        return Long.parseLong(total.group(1)) / (1024 * 1024);
      }
    }
    throw new IllegalStateException("no total in the class histogram " + histogram);
  }

  /** The maximum heap size as the GC log's header states it. */
  private static String maxHeapMib(Path gcLog) throws Exception {
    Matcher max = HEAP_MAX.matcher(Files.readString(gcLog));
    return max.find() ? max.group(1) : "?";
  }

  private static double maxPauseMillis(Path gcLog) throws Exception {
    Matcher matcher = PAUSE.matcher(Files.readString(gcLog));
    double max = 0;
    while (matcher.find()) {
      max = Math.max(max, Double.parseDouble(matcher.group(1)));
    }
    return max;
  }
}
