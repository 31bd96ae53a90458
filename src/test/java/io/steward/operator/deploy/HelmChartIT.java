package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.util.PatchUtils;
import io.steward.operator.deploy.ServiceAccountAccess.Request;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.DeploymentResource;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The Helm chart with its default values (all namespaces), on a real API server: the rendered
 * manifests pass server-side dry-run in a namespace that enforces the restricted Pod Security
 * Standard, install and run on kwok's nodes, the ServiceAccount's RBAC is what Steward needs and no
 * more (the finalizers rule included: without it the server refuses Steward's owner references), and
 * the operator jar running as that ServiceAccount brings a WebApp to Ready.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmChartIT {
  private static final String END_TO_END_POD = "steward-7d9f8-e2e01";
  private static RenderedChart chart;
  private static Kubectl kubectl;
  private static String apps;
  private static LocalCluster cluster;

  @BeforeAll
  static void renderChart(LocalCluster localCluster, TestNamespace namespace) throws Exception {
    cluster = localCluster;
    kubectl = new Kubectl(cluster.kubeconfig());
    DeployTesting.enforceRestrictedPodSecurity(cluster, namespace.name());
    // The CRD as Helm installs it from crds/ (first install only): accepted, then applied.
    assertThat(kubectl.dryRunApply(StewardChart.CHART_CRD).orFail("dry-run of the chart's CRD").warnings()).isEmpty();
    kubectl.apply(StewardChart.CHART_CRD).orFail("applying the chart's CRD");
    kubectl.run("wait", "--for=condition=Established", "--timeout=60s", "crd/webapps.steward.io").orFail("CRD established");

    // Two non-default settings, so the end-to-end test shows the operator really reads the chart's environment.
    chart = RenderedChart.render("steward", namespace.name(), Map.of(
        "leaderElection", Map.of("leaseName", "steward-it-lease"), "workers", 2));
    apps = namespace.name() + "-apps";
    ChartEndToEnd.createNamespace(cluster, apps, Map.of());
  }

  @AfterAll
  static void cleanUp() {
    if (cluster != null) {
      ChartEndToEnd.deleteNamespace(cluster, apps);
      DeployTesting.deleteClusterScoped(cluster, chart == null ? null : chart.manifests);
    }
  }

  @Test
  @Order(1)
  void renderedChartPassesServerSideDryRunWithoutWarnings() {
    Kubectl.Result result = kubectl.dryRunApply(chart.file).orFail("kubectl apply --dry-run=server of the chart");
    // The namespace enforces and warns on the restricted profile: no warning means the pods comply.
    assertThat(result.warnings()).isEmpty();
    assertThat(result.stdout()).contains("deployment.apps/steward serverside-applied (server dry run)",
        "clusterrole.rbac.authorization.k8s.io/steward-manager serverside-applied (server dry run)");
    assertThat(ChartEndToEnd.exists(() -> new AppsV1Api(cluster.adminClient())
        .readNamespacedDeployment("steward", chart.namespace).execute())).as("stored by a dry run").isFalse();
  }

  @Test
  @Order(1)
  void helmTestPodPassesTheRestrictedProfileOnTheServer() throws Exception {
    // helm template leaves hooks out; the test pod is rendered as an ordinary object to be judged.
    Manifests hooks = StewardChart.hooks("steward", chart.namespace, Map.of());
    assertThat(hooks.kinds()).containsExactly("Pod");
    Path file = chart.file.resolveSibling("steward-hooks.yaml");
    Files.writeString(file, hooks.text());
    Kubectl.Result result = kubectl.dryRunApply(file).orFail("kubectl apply --dry-run=server of the helm test pod");
    assertThat(result.warnings()).isEmpty();
    assertThat(result.stdout()).contains("pod/steward-test serverside-applied (server dry run)");
  }

  @Test
  @Order(2)
  void installedChartRunsTwoReplicasThatPassTheRestrictedProfile() {
    Kubectl.Result result = kubectl.apply(chart.file).orFail("kubectl apply of the chart");
    assertThat(result.warnings()).isEmpty();

    AppsV1Api appsApi = new AppsV1Api(cluster.adminClient());
    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().untilAsserted(() -> {
      V1Deployment deployment = appsApi.readNamespacedDeployment("steward", chart.namespace).execute();
      assertThat(deployment.getStatus().getAvailableReplicas()).isEqualTo(2);
    });
    // The pods exist, so PodSecurity admission (enforce=restricted) let them in; kwok "runs" them.
    List<V1Pod> pods = DeployTesting.pods(cluster, chart.namespace, "app.kubernetes.io/instance=steward");
    assertThat(pods).hasSize(2).allSatisfy(pod -> {
      assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
      assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("steward");
      assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
    });
    assertThat(DeployTesting.exists(cluster, "policy", "v1", "poddisruptionbudgets", chart.namespace, "steward")).isTrue();
    assertThat(DeployTesting.exists(cluster, "", "v1", "services", chart.namespace, "steward-metrics")).isTrue();
  }

  @Test
  @Order(3)
  void serviceAccountMayDoWhatStewardNeedsAndNothingElse() {
    ServiceAccountAccess account = chart.serviceAccount(cluster);
    String release = chart.namespace;
    List<Request> needed = new ArrayList<>(DeployTesting.managerRequests(apps));
    needed.addAll(DeployTesting.managerRequests(release));
    // All namespaces: the informers list and watch cluster-wide.
    for (String resource : List.of("steward.io/webapps", "apps/deployments", "/services")) {
      needed.add(Request.of("list", resource, ""));
      needed.add(Request.of("watch", resource, ""));
    }
    needed.addAll(DeployTesting.leaseRequests(release, chart.leaseName()));
    assertThat(needed).allSatisfy(r -> assertThat(account.allows(r)).as("allowed: %s", r).isTrue());

    List<Request> forbidden = new ArrayList<>(DeployTesting.neverAllowed(apps, release, chart.leaseName()));
    forbidden.add(Request.of("get", "coordination.k8s.io/leases", apps, chart.leaseName()));
    forbidden.add(Request.of("update", "coordination.k8s.io/leases", "kube-system", chart.leaseName()));
    assertThat(forbidden).allSatisfy(r -> assertThat(account.allows(r)).as("denied: %s", r).isFalse());
  }

  @Test
  @Order(4)
  void operatorJarRunningAsTheChartsServiceAccountBringsAWebAppToReady() throws Exception {
    // (The chart's own pods are kwok fakes that run nothing, so this process is the only candidate.)
    new ChartEndToEnd(cluster, chart).bringsAWebAppToReady(END_TO_END_POD, apps, null);
  }

  @Test
  @Order(5)
  void theFinalizersRuleIsWhatLetsStewardOwnItsObjects() throws Exception {
    // The local API server enforces OwnerReferencesPermissionEnforcement: an owner reference with
    // blockOwnerDeletion (which Steward sets) needs update on webapps/finalizers. An account with all
    // of the chart's other rules is refused the very Deployment the chart's account may create.
    V1ClusterRole chartRole = cluster.adminClient().getJSON().getGson()
        .fromJson(Manifests.json(HelmChartTest.managerRole(chart.manifests, "steward")), V1ClusterRole.class);
    List<V1PolicyRule> withoutFinalizers = chartRole.getRules().stream()
        .filter(rule -> !rule.getResources().contains("webapps/finalizers")).toList();
    assertThat(withoutFinalizers).hasSize(chartRole.getRules().size() - 1);
    String account = "without-finalizers";
    new CoreV1Api(cluster.adminClient()).createNamespacedServiceAccount(apps,
        new V1ServiceAccount().metadata(new V1ObjectMeta().name(account))).execute();
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(cluster.adminClient());
    rbac.createNamespacedRole(apps, new V1Role().metadata(new V1ObjectMeta().name(account)).rules(withoutFinalizers))
        .execute();
    rbac.createNamespacedRoleBinding(apps, new V1RoleBinding().metadata(new V1ObjectMeta().name(account))
        .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("Role").name(account))
        .subjects(List.of(new RbacV1Subject().kind("ServiceAccount").name(account).namespace(apps)))).execute();

    WebApp owner = new WebApps(cluster.adminClient(), apps).create("owner", WebApps.spec("nginx:1.27", 1, 80));
    V1Deployment owned = new DeploymentResource().desired(owner);
    assertThat(owned.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(reference -> assertThat(reference.getBlockOwnerDeletion()).isTrue());

    Path dir = Path.of("target", "deploy-it", chart.namespace, account);
    ApiClient refused = LocalCluster.clientFor(new ServiceAccountAccess(cluster.adminClient(), apps, account)
        .writeKubeconfig(cluster, dir.resolve("kubeconfig")), account);
    assertThatThrownBy(() -> new AppsV1Api(refused).createNamespacedDeployment(apps, owned).execute())
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(403))
        .satisfies(e -> assertThat(((ApiException) e).getResponseBody())
            .contains("cannot set blockOwnerDeletion"));

    // The chart's fence lets only the Lease holder's pod write: make the end-to-end test's pod the holder.
    V1Pod holder = new CoreV1Api(cluster.adminClient()).readNamespacedPod(END_TO_END_POD, chart.namespace).execute();
    PatchUtils.patch(V1Lease.class, () -> new CoordinationV1Api(cluster.adminClient()).patchNamespacedLease(
        chart.leaseName(), chart.namespace, new V1Patch("{\"spec\":{\"holderIdentity\":\"" + END_TO_END_POD + "\"}}"))
        .buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, cluster.adminClient());
    ApiClient chartAccount = LocalCluster.clientFor(chart.serviceAccount(cluster)
        .writeKubeconfig(cluster, dir.resolve("chart-kubeconfig"), holder), "chart-account");
    // (The API server sees the new holder through its watch of the Lease, a moment after the patch.)
    V1Deployment created = await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
        .until(() -> new AppsV1Api(chartAccount).createNamespacedDeployment(apps, owned).execute(), d -> d != null);
    assertThat(created.getMetadata().getOwnerReferences()).isEqualTo(owned.getMetadata().getOwnerReferences());
  }
}
