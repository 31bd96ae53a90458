package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * The chart's permissions and configuration proven by the operator itself: the built jar runs as a
 * separate process with the environment the chart gives the container, authenticated as the chart's
 * ServiceAccount by a TokenRequest token, with the container's memory limit as the JVM's RAM, and
 * brings a WebApp to Ready. The API server's audit log then shows it was never refused anything.
 */
final class ChartEndToEnd {
  static final Duration START = Duration.ofSeconds(180);
  static final Duration CONVERGE = Duration.ofSeconds(120);

  private final LocalCluster cluster;
  private final RenderedChart chart;

  ChartEndToEnd(LocalCluster cluster, RenderedChart chart) {
    this.cluster = cluster;
    this.chart = chart;
  }

  /**
   * Runs the operator as pod {@code podName} of the chart, creates a WebApp in {@code watched} and
   * one in {@code unwatched} (null: none), and checks what happens to them.
   */
  void bringsAWebAppToReady(String podName, String watched, String unwatched) throws Exception {
    ServiceAccountAccess account = chart.serviceAccount(cluster);
    Map<String, String> env = chart.env(podName);

    WebApps watchedApps = new WebApps(cluster.adminClient(), watched);
    if (unwatched != null) {
      new WebApps(cluster.adminClient(), unwatched).create("ignored", WebApps.spec("nginx:1.27", 1, 80));
    }
    Instant since = Instant.now().minusSeconds(1);
    // As in the container (JAVA_TOOL_OPTIONS from the chart, the memory limit as all the RAM), with a
    // token bound to a pod of that name: the chart's fence lets only the Lease holder's pod write.
    OperatorProcess operator = chart.startReplica(cluster, podName, List.of());
    try {
      awaitOrExplain(operator, START, "readiness probe " + chart.probePath("readinessProbe") + " answers 200",
          () -> operator.get(chart.probePath("readinessProbe")).code() == 200);
      assertThat(operator.get(chart.probePath("livenessProbe")).code()).isEqualTo(200);

      // Leading first (the fence lets only the Lease holder's pod write, as the API server sees the Lease).
      CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
      awaitOrExplain(operator, START, podName + " holds the Lease", () -> podName.equals(
          leases.readNamespacedLease(chart.leaseName(), chart.namespace).execute().getSpec().getHolderIdentity()));
      watchedApps.create("hello", WebApps.spec("nginx:1.27", 2, 80));
      awaitOrExplain(operator, CONVERGE, "WebApp " + watched + "/hello is Ready", () -> {
        WebApp webApp = watchedApps.get("hello");
        return webApp.getStatus() != null && webApp.getStatus().phase() == Phase.Ready;
      });

      // It leads through the Lease in the release namespace, under the chart's name for it.
      CoordinationV1Api coordination = new CoordinationV1Api(cluster.adminClient());
      V1Lease lease = coordination.readNamespacedLease(chart.leaseName(), chart.namespace).execute();
      assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(podName);
      assertThat(operator.get("/actuator/leader").body()).contains("\"leading\":true").contains(chart.leaseName());
      OperatorProcess.Response metrics = operator.get("/actuator/prometheus");
      assertThat(metrics.code()).isEqualTo(200);
      assertThat(metrics.body()).contains("controller_runtime_reconcile_total{controller=\"webapp\"")
          .contains("controller_runtime_max_concurrent_reconciles{controller=\"webapp\"} " + env.get("STEWARD_WORKERS"));

      // The chart's JVM settings fit its memory limit.
      long rss = operator.residentBytes();
      System.out.printf("operator %s: resident memory %d MiB of a %d MiB limit%n", podName, rss >> 20,
          chart.memoryLimitBytes() >> 20);
      assertThat(rss).as("resident memory of the operator JVM").isLessThan(chart.memoryLimitBytes());

      // Removing the port changes the Deployment and deletes the Service: the remaining verbs.
      watchedApps.updateSpec("hello", spec -> spec.withPort(null));
      CoreV1Api core = new CoreV1Api(cluster.adminClient());
      awaitOrExplain(operator, CONVERGE, "Service " + watched + "/hello is deleted",
          () -> !exists(() -> core.readNamespacedService("hello", watched).execute()));

      if (unwatched != null) {
        // Created before the operator started; it never saw it (its informers are namespaced).
        AppsV1Api apps = new AppsV1Api(cluster.adminClient());
        assertThat(exists(() -> apps.readNamespacedDeployment("ignored", unwatched).execute())).isFalse();
        WebApp ignored = new WebApps(cluster.adminClient(), unwatched).get("ignored");
        assertThat(ignored.getStatus().phase()).as("status of a WebApp in an unwatched namespace").isNull();
        assertThat(ignored.getStatus().observedGeneration()).isNull();
      }

      // The server's record of every request the operator sent (watches aside): nothing was refused,
      // and it did use its permissions.
      String user = account.userName();
      await().atMost(CONVERGE).untilAsserted(() -> assertThat(usedPermissions(user, since))
          .contains("create apps/deployments", "patch apps/deployments", "create /services", "delete /services",
              "patch steward.io/webapps/status", "create /events", "get coordination.k8s.io/leases"));
      // (Other test classes' namespaces may be terminating, where every create is refused: not RBAC.)
      List<AuditLog.Entry> refused = cluster.auditLog().entries(e -> user.equals(e.user())
          && !e.received().isBefore(since) && (e.code() == 401 || e.code() == 403)
          && !e.message().contains("because it is being terminated"));
      assertThat(refused).as("requests the API server refused to %s", user).isEmpty();
      System.out.println("operator " + podName + " used: " + usedPermissions(user, since));
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(e.getMessage() + "\n---- operator log (last lines) ----\n" + operator.logTail(60), e);
    } finally {
      operator.close();
    }
    // A graceful stop releases the Lease, so a standby takes over at once.
    CoordinationV1Api coordination = new CoordinationV1Api(cluster.adminClient());
    String holder = coordination.readNamespacedLease(chart.leaseName(), chart.namespace).execute().getSpec()
        .getHolderIdentity();
    assertThat(holder).as("Lease holder after a graceful stop; log: %s", operator.log()).isNullOrEmpty();
  }

  private Set<String> usedPermissions(String user, Instant since) {
    Set<String> used = new TreeSet<>();
    cluster.auditLog().entries(e -> user.equals(e.user()) && !e.received().isBefore(since)).forEach(e ->
        used.add(e.verb() + " " + e.apiGroup() + "/" + e.resource() + (e.subresource().isEmpty() ? "" : "/" + e.subresource())));
    return used;
  }

  static void createNamespace(LocalCluster cluster, String name, Map<String, String> labels) throws ApiException {
    new CoreV1Api(cluster.adminClient()).createNamespace(new V1Namespace()
        .metadata(new V1ObjectMeta().name(name).labels(labels))).execute();
  }

  static void deleteNamespace(LocalCluster cluster, String name) {
    try {
      new CoreV1Api(cluster.adminClient()).deleteNamespace(name).execute();
    } catch (ApiException e) {
      // best effort: it dies with the cluster
    }
  }

  interface Read {
    Object read() throws ApiException;
  }

  static boolean exists(Read read) {
    try {
      read.read();
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw new IllegalStateException("HTTP " + e.getCode() + ": " + e.getResponseBody(), e);
    }
  }

  /** The operator process ended while a test waited for it: no point waiting any longer. */
  static final class OperatorExited extends RuntimeException {
    OperatorExited(String message) {
      super(message);
    }
  }

  private static void awaitOrExplain(OperatorProcess operator, Duration timeout, String what, Callable<Boolean> condition) {
    await().alias(what).atMost(timeout).pollInterval(Duration.ofMillis(500))
        .ignoreExceptionsMatching(e -> !(e instanceof OperatorExited)).until(() -> {
          if (!operator.isRunning()) {
            throw new OperatorExited("the operator exited while waiting until " + what);
          }
          return condition.call();
        });
  }
}
