package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.steward.operator.reliability.ReliabilityReport;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.api.WebAppSpec.EnvVar;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Memory: WebApps of the largest size the CRD allows (every env entry a reference with the longest
 * names the schema accepts, within the env size rule), watched by one replica run as the chart runs
 * it (its JVM options, the container's memory limit as all the RAM there is, exit on
 * OutOfMemoryError). It must converge them all without running out of memory, and its longest GC
 * pause must stay far below the renew deadline. With {@code -Preliability} only.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class LargestWebAppsMemoryIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final int WEBAPPS = 5_000;
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final String SCENARIO = "memory, largest WebApps the CRD allows (chart: 512Mi limit)";
  private static final Pattern PAUSE = Pattern.compile("Pause[^\\n]*?([0-9.]+)ms\\s*$", Pattern.MULTILINE);

  @Test
  void theLargestWebAppsFitTheChartsMemoryLimit(LocalCluster cluster, TestNamespace namespace) throws Exception {
    Assumptions.assumeTrue(FULL, "tens of minutes on two cores: runs with -Preliability only");
    String ns = namespace.name();
    RenderedChart chart = RenderedChart.installWithoutItsDeployment(cluster, ns, Set.of());
    Path gcLog = Path.of("target", "deploy-it", ns, "gc.log").toAbsolutePath();
    Files.createDirectories(gcLog.getParent());
    WebAppSpec largest = largestSpec();
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    int size = cluster.adminClient().getJSON().serialize(largest).length();

    try (OperatorProcess replica = chart.startReplica(cluster, "steward-7c6d5b8f9-mem0",
        List.of("--steward.resync-period=2m"), List.of("-Xlog:gc:file=" + gcLog))) {
      await().atMost(ChartEndToEnd.START).until(replica::isReady);
      Instant start = Instant.now();
      ExecutorService writers = Executors.newFixedThreadPool(4);
      List<Future<?>> created = new ArrayList<>();
      for (int i = 0; i < WEBAPPS; i++) {
        String name = "largest-" + i;
        created.add(writers.submit(() -> webApps.create(name, largest)));
      }
      for (Future<?> future : created) {
        future.get();
      }
      writers.shutdown();
      AppsV1Api apps = new AppsV1Api(cluster.adminClient());
      await().atMost(Duration.ofMinutes(40)).pollInterval(Duration.ofSeconds(5))
          .until(() -> !replica.isRunning() || apps.listNamespacedDeployment(ns).execute().getItems().size() >= WEBAPPS);
      assertThat(replica.isRunning()).as("the replica ran out of memory (it exits on OutOfMemoryError): see %s",
          replica.log()).isTrue();
      Duration converged = Duration.between(start, Instant.now());
      // A couple of resyncs over all of them, the steady state a large installation lives in.
      Thread.sleep(Duration.ofMinutes(4).toMillis());
      assertThat(replica.isRunning()).isTrue();
      long peakRss = peakRssKib(replica.pid());
      double maxPause = maxPauseMillis(gcLog);
      REPORT.record(SCENARIO, "WebApps / bytes each as JSON", WEBAPPS + " / " + size);
      REPORT.record(SCENARIO, "created to every Deployment written, s", converged.toMillis() / 1000.0);
      REPORT.record(SCENARIO, "peak RSS, MiB (limit 512)", peakRss / 1024);
      REPORT.record(SCENARIO, "longest GC pause, ms", maxPause);
      assertThat(peakRss).as("peak RSS, KiB").isLessThan(512 * 1024);
      assertThat(maxPause).as("longest GC pause, ms (renew deadline 4 s here)").isLessThan(1_000);
    } finally {
      REPORT.write(Path.of("target", "reliability"));
    }
  }

  /**
   * The largest spec the schema admits: the most env entries, each a reference (whose names the env
   * size rule does not count) under the longest variable name the rule still allows, and the longest
   * image.
   */
  static WebAppSpec largestSpec() {
    List<EnvVar> env = new ArrayList<>();
    int entries = 128;
    int nameLength = 32768 / entries;
    String reference = "r".repeat(253);
    for (int i = 0; i < entries; i++) {
      String name = "E" + "%03d".formatted(i) + "_".repeat(nameLength - 4);
      env.add(i % 2 == 0 ? EnvVar.fromSecret(name, reference, reference, true)
          : EnvVar.fromConfigMap(name, reference, reference, true));
    }
    String image = "registry.example.com/" + "a".repeat(512 - "registry.example.com/".length() - ":1".length()) + ":1";
    return WebApps.spec(image, 0, 80).withEnv(env);
  }

  private static long peakRssKib(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmHWM in /proc/" + pid + "/status");
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
