package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.steward.operator.reliability.ReliabilityReport;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.FaultProxy;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What happens around Steward while it runs, as the chart installs it (its ServiceAccount, RBAC and
 * a replica with a token bound to its pod): its permissions revoked then restored, the WebApp CRD
 * deleted and re-created, a watched namespace deleted and re-created, its token and the API server's
 * serving certificate rotated. Each time the problem must be
 * visible within a minute (readiness and {@code steward_informer_failing}), and Steward must apply a
 * change made meanwhile within two minutes of the cause going away, without a restart.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LifecycleIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  /**
   * In the full run long enough for an uncapped (client-go's) back-off to put the next retry more
   * than the recovery bound after the restore.
   */
  private static final Duration REVOKED_FOR = FULL ? Duration.ofMinutes(8) : Duration.ofSeconds(30);
  private static final Duration VISIBLE_WITHIN = Duration.ofMinutes(1);
  private static final Duration RECOVERS_WITHIN = Duration.ofMinutes(2);
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final String SCENARIO = "lifecycle (chart RBAC, one replica)";

  private static final String REPLICA = "steward-5d8f7c9b6-life0";
  /**
   * Every new connection of the replica's a full TLS handshake, in which the API server presents its
   * certificate: TLS 1.2 without session tickets, which the API server (Go) needs to resume a session.
   * Otherwise a connection made after the rotation resumes an old session, is never shown the new
   * certificate, and the rotation test could not fail.
   */
  private static final List<String> FULL_HANDSHAKES = List.of("-Djdk.tls.client.protocols=TLSv1.2",
      "-Djdk.tls.client.enableSessionTicketExtension=false");

  private static LocalCluster cluster;
  private static RenderedChart chart;
  private static OperatorProcess replica;
  /** Between the replica and the API server, passing everything, to reset its connections when asked. */
  private static FaultProxy proxy;
  private static String ns;

  @BeforeAll
  static void start(LocalCluster localCluster, TestNamespace namespace) {
    cluster = localCluster;
    ns = namespace.name();
    chart = RenderedChart.installWithoutItsDeployment(cluster, ns, Set.of());
    proxy = new FaultProxy(cluster.apiServerPort());
    replica = chart.startReplica(cluster, REPLICA, List.of(), FULL_HANDSHAKES, proxy.url());
    await().atMost(ChartEndToEnd.START).until(replica::isReady);
  }

  @AfterAll
  static void stop() {
    if (replica != null) {
      replica.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    REPORT.write(Path.of("target", "reliability"));
  }

  /**
   * The manager's ClusterRoleBinding deleted for a while (in the full run long enough for the
   * back-off of a retried reconcile to outgrow the recovery bound), a spec changed meanwhile, then
   * the binding restored.
   */
  @Test
  @Order(1)
  void revokedPermissionsShowAndRestoredOnesConverge() throws Exception {
    WebApps webApps = convergedWebApp("rbac");

    Map<String, Object> binding = chart.manifests.single("ClusterRoleBinding", "manager");
    DynamicKubernetesApi bindings = new DynamicKubernetesApi("rbac.authorization.k8s.io", "v1", "clusterrolebindings",
        cluster.adminClient());
    double errorsBefore = metric("controller_runtime_reconcile_errors_total");
    Instant revoked = Instant.now();
    bindings.delete(Manifests.name(binding)).throwsApiException();
    // A change Steward cannot apply now.
    webApps.updateSpec("rbac", spec -> spec.withImage("nginx:1.28"));
    List<String> signs = new java.util.ArrayList<>();
    Duration visible = awaitProblemVisible(revoked, errorsBefore, signs);
    Thread.sleep(Math.max(0, REVOKED_FOR.minus(Duration.between(revoked, Instant.now())).toMillis()));
    Instant restored = Instant.now();
    bindings.create(new DynamicKubernetesObject(Manifests.json(binding))).throwsApiException();
    awaitImage("rbac", "nginx:1.28", RECOVERS_WITHIN);
    await().atMost(VISIBLE_WITHIN).until(() -> ready() && informersFailing() == 0);
    REPORT.record(SCENARIO, "RBAC revoked " + REVOKED_FOR.toSeconds() + " s: revocation to visible, s", seconds(visible));
    REPORT.record(SCENARIO, "RBAC revoked: what showed it", signs);
    REPORT.record(SCENARIO, "RBAC restored to the change applied, s", seconds(Duration.between(restored, Instant.now())));
    assertThat(replica.isRunning()).isTrue();
  }

  /** The CRD deleted (and with it every WebApp), then re-created with a new WebApp of the same name. */
  @Test
  @Order(2)
  void aDeletedAndRecreatedCrdConverges() throws Exception {
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    webApps.create("crd", WebApps.spec("nginx:1.27", 1, 80));
    awaitImage("crd", "nginx:1.27", RECOVERS_WITHIN);

    double errorsBefore = metric("controller_runtime_reconcile_errors_total");
    Instant deleted = Instant.now();
    new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", cluster.adminClient())
        .delete("webapps.steward.io").throwsApiException();
    await().atMost(Duration.ofMinutes(1)).until(() -> !crdExists());
    List<String> signs = new java.util.ArrayList<>();
    Duration visible = awaitProblemVisible(deleted, errorsBefore, signs);
    Instant recreated = Instant.now();
    Crds.installWebAppCrd(cluster.adminClient());
    await().atMost(Duration.ofMinutes(1)).ignoreExceptions()
        .until(() -> new WebApps(cluster.adminClient(), ns).tryCreate("crd", WebApps.spec("nginx:1.29", 1, 80)).isSuccess());
    awaitImage("crd", "nginx:1.29", RECOVERS_WITHIN);
    REPORT.record(SCENARIO, "CRD deleted: deletion to visible, s", seconds(visible));
    REPORT.record(SCENARIO, "CRD deleted: what showed it", signs);
    REPORT.record(SCENARIO, "CRD re-created to a new WebApp converged, s", seconds(Duration.between(recreated, Instant.now())));
    await().atMost(VISIBLE_WITHIN).until(() -> ready() && informersFailing() == 0);
    assertThat(replica.isRunning()).isTrue();
  }

  /** A watched namespace deleted with its WebApps, then re-created with a WebApp of an old name. */
  @Test
  @Order(3)
  void aDeletedAndRecreatedNamespaceConverges() throws Exception {
    String gone = ns + "-gone";
    ChartEndToEnd.createNamespace(cluster, gone, Map.of());
    WebApps webApps = new WebApps(cluster.adminClient(), gone);
    for (int i = 0; i < 5; i++) {
      webApps.create("app-" + i, WebApps.spec("nginx:1.27", 1, 80));
    }
    await().atMost(RECOVERS_WITHIN).ignoreExceptions().until(() -> deployment(gone, "app-4") != null);
    ChartEndToEnd.deleteNamespace(cluster, gone);
    // The namespace controller empties it first (Steward meanwhile meets a terminating namespace).
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
        .until(() -> !ChartEndToEnd.exists(() -> new CoreV1Api(cluster.adminClient()).readNamespace(gone).execute()));
    Instant recreated = Instant.now();
    ChartEndToEnd.createNamespace(cluster, gone, Map.of());
    webApps.create("app-0", WebApps.spec("nginx:1.30", 1, 80));
    await().atMost(RECOVERS_WITHIN).ignoreExceptions().until(() -> "nginx:1.30".equals(image(gone, "app-0")));
    REPORT.record(SCENARIO, "namespace deleted and re-created to a new WebApp converged, s",
        seconds(Duration.between(recreated, Instant.now())));
    assertThat(ready()).isTrue();
    ChartEndToEnd.deleteNamespace(cluster, gone);
  }

  /**
   * The replica's token rotated at once, as a pod's projected token is when the old one can no longer
   * be used: its Pod object (which the token is bound to) deleted and re-created under the same
   * name, a new token for it written over the token file. Once the API server refuses the old token,
   * a spec change is made: Steward, which reads the file again at the first refusal, keeps its Lease
   * and applies it without a restart. A client that reads its token once loses its Lease and exits.
   */
  @Test
  @Order(4)
  void aRotatedTokenIsPickedUpWithoutARestart() throws Exception {
    WebApps webApps = convergedWebApp("token");
    long pid = replica.pid();

    // The token the replica uses now, kept for a probe: it must be refused once rotated.
    Path kubeconfig = chart.kubeconfigOf(REPLICA);
    Path oldToken = Files.copy(kubeconfig.resolveSibling("kubeconfig.token"), kubeconfig.resolveSibling("old.token"),
        StandardCopyOption.REPLACE_EXISTING);
    Path oldKubeconfig = Files.writeString(kubeconfig.resolveSibling("old.kubeconfig"), Files.readString(kubeconfig)
        .replace(kubeconfig.resolveSibling("kubeconfig.token").toAbsolutePath().toString(), oldToken.toAbsolutePath().toString()));
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    Instant rotated = Instant.now();
    core.deleteNamespacedPod(REPLICA, ns).gracePeriodSeconds(0).execute();
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> !ChartEndToEnd.exists(() -> core.readNamespacedPod(REPLICA, ns).execute()));
    chart.serviceAccount(cluster).rotateToken(chart.kubeconfigOf(REPLICA), chart.createPod(cluster, REPLICA));
    // The API server keeps accepting a token it validated for a few seconds (its token cache).
    ApiClient old = LocalCluster.clientFor(oldKubeconfig, "lifecycle-it/old-token");
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
      try {
        new CoreV1Api(old).listNamespacedService(ns).execute();
        return false;
      } catch (ApiException e) {
        return e.getCode() == 401;
      }
    });
    Instant refused = Instant.now();
    Duration applied = changeApplied(webApps, "token");
    REPORT.record(SCENARIO, "token rotated: old token refused by the API server after, s",
        seconds(Duration.between(rotated, refused)));
    REPORT.record(SCENARIO, "token rotated: old token refused to a change applied, s", seconds(applied));
    assertSameProcess(pid, "its token was rotated");
  }

  /**
   * The API server's serving certificate rotated (a new key from the same CA, the same names), as a
   * certificate renewal does; the API server reloads it by itself and serves it to new connections.
   * Then every connection the replica holds is reset (connections already open would keep the old
   * certificate), so everything it sends from then on goes over a connection served the new one. A
   * change made after the reset must be applied by the same process, its Lease kept. A client that
   * pinned the certificate it first saw, instead of trusting the CA, could not connect again.
   * (Restarting the API server instead would outlast the replica's short renew deadline here.)
   */
  @Test
  @Order(5)
  void aRotatedServingCertificateIsTrustedWithoutARestart() throws Exception {
    WebApps webApps = convergedWebApp("cert");
    long pid = replica.pid();
    X509Certificate before = cluster.servedCertificate();
    Instant rotating = Instant.now();
    X509Certificate rotated = cluster.rotateServingCertificate(Duration.ofMinutes(2));
    Duration reloaded = Duration.between(rotating, Instant.now());
    assertThat(rotated).isNotEqualTo(before);
    proxy.resetConnections();
    Duration applied = changeApplied(webApps, "cert");
    REPORT.record(SCENARIO, "serving certificate rotated: files replaced to served by the API server, s",
        seconds(reloaded));
    REPORT.record(SCENARIO, "serving certificate rotated: connections reset, a change to applied, s", seconds(applied));
    assertSameProcess(pid, "the serving certificate was rotated");
  }

  /**
   * Changes the image of WebApp {@code name}, waits until Steward has applied it and is healthy again;
   * returns how long the change took to reach its Deployment.
   */
  private static Duration changeApplied(WebApps webApps, String name) throws ApiException {
    Instant changed = Instant.now();
    webApps.updateSpec(name, spec -> spec.withImage("nginx:1.28"));
    awaitImage(name, "nginx:1.28", RECOVERS_WITHIN);
    Duration applied = Duration.between(changed, Instant.now());
    await().atMost(VISIBLE_WITHIN).until(() -> ready() && informersFailing() == 0);
    return applied;
  }

  /** The replica is still running, and is the process {@code pid}: nothing restarted it. */
  private static void assertSameProcess(long pid, String after) {
    assertThat(replica.isRunning()).as("the replica after %s", after).isTrue();
    assertThat(replica.pid()).as("the same process after %s", after).isEqualTo(pid);
  }

  /**
   * Waits until the replica shows a problem the way an operator's user can see it: readiness down,
   * an informer failing, or reconcile errors counted (permissions revoked leave open watches
   * working, so only the writes fail then). Returns how long that took and which signs showed.
   */
  private Duration awaitProblemVisible(Instant since, double errorsBefore, List<String> signs) {
    await().atMost(VISIBLE_WITHIN).pollInterval(Duration.ofSeconds(1)).until(() -> {
      signs.clear();
      if (!ready()) {
        signs.add("readiness down");
      }
      if (informersFailing() > 0) {
        signs.add("steward_informer_failing");
      }
      if (metric("controller_runtime_reconcile_errors_total") > errorsBefore) {
        signs.add("reconcile errors counted");
      }
      return !signs.isEmpty();
    });
    return Duration.between(since, Instant.now());
  }

  /** A new WebApp of that name, once Steward has applied it. */
  private static WebApps convergedWebApp(String name) throws ApiException {
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    webApps.create(name, WebApps.spec("nginx:1.27", 1, 80));
    awaitImage(name, "nginx:1.27", RECOVERS_WITHIN);
    return webApps;
  }

  private static Duration awaitImage(String name, String image, Duration within) {
    Instant start = Instant.now();
    await().atMost(within).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
        .until(() -> image.equals(image(ns, name)));
    return Duration.between(start, Instant.now());
  }

  private static String image(String namespace, String name) throws ApiException {
    V1Deployment deployment = deployment(namespace, name);
    return deployment == null ? null : deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  private static V1Deployment deployment(String namespace, String name) throws ApiException {
    try {
      return new AppsV1Api(cluster.adminClient()).readNamespacedDeployment(name, namespace).execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static boolean crdExists() {
    return new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", cluster.adminClient())
        .get("webapps.steward.io").isSuccess();
  }

  private static boolean ready() {
    return replica.get(chart.probePath("readinessProbe")).code() == 200;
  }

  private static double informersFailing() {
    return metric("steward_informer_failing");
  }

  /** The sum of the series named {@code metric} on the replica's Prometheus page. */
  private static double metric(String metric) {
    return replica.metricValues(metric).stream().mapToDouble(Double::doubleValue).sum();
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }
}
