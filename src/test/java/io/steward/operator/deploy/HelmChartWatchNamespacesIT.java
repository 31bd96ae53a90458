package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.steward.operator.deploy.ServiceAccountAccess.Request;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The Helm chart with watchNamespaces: no cluster-wide permission at all, a Role and RoleBinding in
 * each watched namespace, the same list passed to the operator, and the operator running with exactly
 * that works in the watched namespaces and leaves the others alone.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmChartWatchNamespacesIT {
  private static LocalCluster cluster;
  private static Kubectl kubectl;
  private static RenderedChart chart;
  private static String teamA;
  private static String teamB;
  private static String other;

  @BeforeAll
  static void renderChart(LocalCluster localCluster, TestNamespace namespace) throws Exception {
    cluster = localCluster;
    kubectl = new Kubectl(cluster.kubeconfig());
    DeployTesting.enforceRestrictedPodSecurity(cluster, namespace.name());
    kubectl.apply(StewardChart.CHART_CRD).orFail("applying the chart's CRD");
    kubectl.run("wait", "--for=condition=Established", "--timeout=60s", "crd/webapps.steward.io").orFail("CRD established");
    teamA = namespace.name() + "-a";
    teamB = namespace.name() + "-b";
    other = namespace.name() + "-other";
    for (String ns : List.of(teamA, teamB, other)) {
      ChartEndToEnd.createNamespace(cluster, ns, Map.of());
    }
    chart = RenderedChart.render("steward", namespace.name(), Map.of("watchNamespaces", List.of(teamA, teamB)));
  }

  @AfterAll
  static void cleanUp() {
    if (cluster != null) {
      DeployTesting.deleteClusterScoped(cluster, chart == null ? null : chart.manifests);
      for (String ns : new String[] {teamA, teamB, other}) {
        if (ns != null) {
          ChartEndToEnd.deleteNamespace(cluster, ns);
        }
      }
    }
  }

  @Test
  @Order(1)
  void renderedChartPassesServerSideDryRunWithoutWarnings() {
    // Nothing cluster-wide for Steward: the only ClusterRoles are the aggregated ones for users.
    assertThat(chart.manifests.ofKind("ClusterRole")).extracting(Manifests::name)
        .allMatch(name -> name.startsWith("steward-webapp-"));
    assertThat(chart.manifests.ofKind("ClusterRoleBinding")).isEmpty();
    Kubectl.Result result = kubectl.dryRunApply(chart.file).orFail("kubectl apply --dry-run=server of the chart");
    assertThat(result.warnings()).isEmpty();
    assertThat(result.stdout()).contains("role.rbac.authorization.k8s.io/steward-manager serverside-applied (server dry run)");
  }

  @Test
  @Order(2)
  void installedChartRunsItsReplicas() {
    assertThat(kubectl.apply(chart.file).orFail("kubectl apply of the chart").warnings()).isEmpty();
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().untilAsserted(() -> {
      V1Deployment deployment = apps.readNamespacedDeployment("steward", chart.namespace).execute();
      assertThat(deployment.getStatus().getAvailableReplicas()).isEqualTo(2);
    });
    for (String ns : List.of(teamA, teamB)) {
      assertThat(DeployTesting.exists(cluster, "rbac.authorization.k8s.io", "v1", "roles", ns, "steward-manager")).isTrue();
      assertThat(DeployTesting.exists(cluster, "rbac.authorization.k8s.io", "v1", "rolebindings", ns, "steward-manager")).isTrue();
    }
  }

  @Test
  @Order(3)
  void serviceAccountMayWorkInTheWatchedNamespacesOnly() {
    ServiceAccountAccess account = chart.serviceAccount(cluster);
    String release = chart.namespace;
    List<Request> needed = new ArrayList<>(DeployTesting.managerRequests(teamA));
    needed.addAll(DeployTesting.managerRequests(teamB));
    needed.addAll(DeployTesting.leaseRequests(release, chart.leaseName()));
    assertThat(needed).allSatisfy(r -> assertThat(account.allows(r)).as("allowed: %s", r).isTrue());

    List<Request> forbidden = new ArrayList<>(DeployTesting.neverAllowed(teamA, release, chart.leaseName()));
    // Nothing in an unwatched namespace (not even its own), and nothing cluster-wide.
    forbidden.addAll(DeployTesting.managerRequests(other));
    forbidden.addAll(DeployTesting.managerRequests(release));
    for (String resource : List.of("steward.io/webapps", "apps/deployments", "/services", "/events")) {
      forbidden.add(Request.of("list", resource, ""));
      forbidden.add(Request.of("watch", resource, ""));
    }
    forbidden.add(Request.of("create", "coordination.k8s.io/leases", teamA));
    assertThat(forbidden).allSatisfy(r -> assertThat(account.allows(r)).as("denied: %s", r).isFalse());
  }

  @Test
  @Order(4)
  void operatorJarWithTheChartsSettingsManagesWatchedNamespacesOnly() throws Exception {
    new ChartEndToEnd(cluster, chart).bringsAWebAppToReady("steward-5c4b7-e2e02", teamB, other);
  }
}
