package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.steward.operator.deploy.ServiceAccountAccess.Request;
import io.steward.operator.support.Crds;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.yaml.snakeyaml.Yaml;

/**
 * `kubectl apply -k config/default` without Helm: what `kubectl kustomize config/default` produces,
 * and the same base re-targeted by an overlay to the test namespace (as users re-target it) passing
 * server-side dry-run, installing, running on kwok's nodes, with the same least privilege as the chart.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KustomizeIT {
  private static final Path DEFAULT = Path.of("config", "default");
  private static LocalCluster cluster;
  private static Kubectl kubectl;
  private static String ns;
  private static Manifests overlay;
  private static Path overlayFile;

  @BeforeAll
  static void renderOverlay(LocalCluster localCluster, TestNamespace namespace) throws Exception {
    cluster = localCluster;
    kubectl = new Kubectl(cluster.kubeconfig());
    ns = namespace.name();
    Path dir = Path.of("target", "deploy-it", ns, "kustomize").toAbsolutePath();
    Files.createDirectories(dir);
    // An overlay of config/default, as a user would write one: another namespace, unique names, and
    // (as docs/operations.md says) config/default's replacements repeated, so the fence and the FlowSchema
    // name the renamed ServiceAccount.
    Map<String, Object> base = new Yaml().load(Files.readString(DEFAULT.resolve("kustomization.yaml")));
    Map<String, Object> kustomization = new LinkedHashMap<>();
    kustomization.put("namespace", ns);
    kustomization.put("nameSuffix", "-" + ns);
    kustomization.put("resources", List.of(dir.relativize(DEFAULT.toAbsolutePath()).toString()));
    kustomization.put("replacements", base.get("replacements"));
    Files.writeString(dir.resolve("kustomization.yaml"), new Yaml().dump(kustomization));
    Kubectl.Result rendered = Kubectl.kustomize(dir).orFail("kubectl kustomize of the overlay");
    overlay = Manifests.parse(rendered.stdout());
    overlayFile = dir.resolve("rendered.yaml");
    Files.writeString(overlayFile, rendered.stdout());
  }

  @AfterAll
  static void cleanUp() {
    if (cluster != null) {
      DeployTesting.deleteClusterScoped(cluster, overlay);
    }
  }

  @Test
  @Order(1)
  void defaultOverlayInstallsCrdRbacAndAHardenedManagerInStewardSystem() throws Exception {
    Manifests out = Manifests.parse(Kubectl.kustomize(DEFAULT).orFail("kubectl kustomize config/default").stdout());

    assertThat(out.kinds()).containsExactlyInAnyOrder("Namespace", "CustomResourceDefinition", "ServiceAccount",
        "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service", "Deployment", "PodDisruptionBudget",
        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding", "FlowSchema", "PriorityLevelConfiguration", "ClusterRole", "ClusterRole",
        "ClusterRole");
    assertThat(Manifests.name(out.single("Namespace"))).isEqualTo("steward-system");
    assertThat(map(out.single("Namespace"), "metadata", "labels"))
        .containsEntry("pod-security.kubernetes.io/enforce", "restricted");
    assertThat(out.where(o -> Manifests.namespace(o) != null)).extracting(Manifests::namespace)
        .containsOnly("steward-system");
    // The CRD is the source-of-truth file, untouched but for kustomize's labels.
    Map<String, Object> crd = new HashMap<>(out.single("CustomResourceDefinition"));
    Map<String, Object> file = new Yaml().load(Files.readString(Crds.WEBAPP_CRD));
    assertThat(crd.get("spec")).isEqualTo(file.get("spec"));
    assertThat(Manifests.name(crd)).isEqualTo("webapps.steward.io");

    assertThat(RbacRules.flatten(out.get("ClusterRole", null, "steward-manager-role")))
        .containsExactlyInAnyOrderElementsOf(RbacRules.MANAGER);
    assertThat(RbacRules.flatten(out.single("Role"))).containsExactlyInAnyOrderElementsOf(RbacRules.leaderElection("steward-leader"));
    Map<String, String> subject = Map.of("kind", "ServiceAccount", "name", "steward-controller-manager",
        "namespace", "steward-system");
    assertThat(list(out.single("ClusterRoleBinding"), "subjects")).singleElement().isEqualTo(subject);
    assertThat(list(out.single("RoleBinding"), "subjects")).singleElement().isEqualTo(subject);
    assertThat(Manifests.value(out.single("ClusterRoleBinding"), "roleRef", "name")).isEqualTo("steward-manager-role");

    Map<String, Object> deployment = out.single("Deployment");
    assertThat(Manifests.value(deployment, "spec", "replicas")).isEqualTo(2);
    Map<String, Object> pod = map(deployment, "spec", "template", "spec");
    assertThat(pod.get("serviceAccountName")).isEqualTo("steward-controller-manager");
    Map<String, Object> container = list(pod, "containers").get(0);
    assertThat(container.get("image")).isEqualTo("ghcr.io/steward-io/steward:0.1.0");
    assertThat(map(container, "securityContext")).containsEntry("readOnlyRootFilesystem", true)
        .containsEntry("allowPrivilegeEscalation", false);
    assertThat(HelmChartTest.env(container)).containsKeys("POD_NAME", "POD_NAMESPACE", "JAVA_TOOL_OPTIONS");
    assertThat(Manifests.value(container, "readinessProbe", "httpGet", "path")).isEqualTo("/actuator/health/readiness");
    assertThat(Manifests.value(container, "livenessProbe", "httpGet", "path")).isEqualTo("/actuator/health/liveness");
  }

  @Test
  @Order(1)
  void fenceFlowControlAndUserRolesAreTheChartsForTheSameNames() {
    Manifests out = Manifests.parse(Kubectl.kustomize(DEFAULT).orFail("kubectl kustomize config/default").stdout());
    // The chart released as "steward" in steward-system, with the kustomize install's ServiceAccount name.
    Manifests chart = StewardChart.template("steward", "steward-system",
        Map.of("serviceAccount", Map.of("name", "steward-controller-manager")));
    for (String kind : List.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "FlowSchema",
        "PriorityLevelConfiguration")) {
      String name = kind.startsWith("ValidatingAdmissionPolicy") ? "leader-fence" : "";
      Map<String, Object> mine = out.single(kind, name);
      Map<String, Object> charts = chart.single(kind, name);
      assertThat(Manifests.name(mine)).as("name of the %s", kind).isEqualTo(Manifests.name(charts));
      assertThat(mine.get("spec")).as("spec of the %s", kind).isEqualTo(charts.get("spec"));
    }
    for (String role : List.of("steward-webapp-viewer", "steward-webapp-editor", "steward-webapp-admin")) {
      Map<String, Object> mine = out.get("ClusterRole", null, role);
      Map<String, Object> charts = chart.get("ClusterRole", null, role);
      assertThat(RbacRules.flatten(mine)).as(role).isEqualTo(RbacRules.flatten(charts));
      assertThat(map(mine, "metadata", "labels")).as(role).containsAllEntriesOf(map(charts, "metadata", "labels")
          .entrySet().stream().filter(e -> e.getKey().startsWith("rbac.authorization.k8s.io/"))
          .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }
    // The overlay's replacements follow its namespace and suffix.
    assertThat(Manifests.value(overlay.single("ValidatingAdmissionPolicy", "leader-fence"), "spec", "matchConditions", 0, "expression"))
        .isEqualTo("request.userInfo.username.split(':') == ['system', 'serviceaccount', '%s', 'steward-controller-manager-%s']"
            .formatted(ns, ns));
    assertThat(Manifests.value(overlay.single("ValidatingAdmissionPolicyBinding", "leader-fence"), "spec", "paramRef", "namespace"))
        .isEqualTo(ns);
    assertThat(Manifests.value(overlay.single("FlowSchema"), "spec", "rules", 0, "subjects", 0, "serviceAccount"))
        .isEqualTo(Map.of("name", "steward-controller-manager-" + ns, "namespace", ns));
  }

  @Test
  @Order(2)
  void overlayPassesServerSideDryRunWithoutWarnings() {
    assertThat(Manifests.name(overlay.single("Namespace"))).isEqualTo(ns);
    Kubectl.Result result = kubectl.dryRunApply(overlayFile).orFail("kubectl apply --dry-run=server of the overlay");
    assertThat(result.warnings()).isEmpty();
    assertThat(result.stdout()).contains("deployment.apps/steward-controller-manager-" + ns + " serverside-applied (server dry run)");
  }

  @Test
  @Order(3)
  void installedOverlayRunsTwoReplicasUnderTheRestrictedProfile() {
    assertThat(kubectl.apply(overlayFile).orFail("kubectl apply of the overlay").warnings()).isEmpty();
    String name = "steward-controller-manager-" + ns;
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().untilAsserted(() -> {
      V1Deployment deployment = apps.readNamespacedDeployment(name, ns).execute();
      assertThat(deployment.getStatus().getAvailableReplicas()).isEqualTo(2);
    });
    // The Namespace object of the base now labels this namespace: pods had to pass enforce=restricted.
    assertThat(DeployTesting.pods(cluster, ns, "app.kubernetes.io/name=steward")).hasSize(2)
        .allSatisfy(pod -> assertThat(pod.getStatus().getPhase()).isEqualTo("Running"));
  }

  @Test
  @Order(4)
  void serviceAccountHasTheSameLeastPrivilegeAsTheChart() {
    ServiceAccountAccess account = new ServiceAccountAccess(cluster.adminClient(), ns, "steward-controller-manager-" + ns);
    String elsewhere = "default";
    List<Request> needed = new ArrayList<>(DeployTesting.managerRequests(elsewhere));
    for (String resource : List.of("steward.io/webapps", "apps/deployments", "/services")) {
      needed.add(Request.of("list", resource, ""));
      needed.add(Request.of("watch", resource, ""));
    }
    needed.addAll(DeployTesting.leaseRequests(ns, "steward-leader"));
    assertThat(needed).allSatisfy(r -> assertThat(account.allows(r)).as("allowed: %s", r).isTrue());
    assertThat(DeployTesting.neverAllowed(elsewhere, ns, "steward-leader"))
        .allSatisfy(r -> assertThat(account.allows(r)).as("denied: %s", r).isFalse());
  }
}
