package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.CreateOptions;
import io.steward.operator.deploy.Manifests;
import io.steward.operator.deploy.StewardChart;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The confused deputy: Steward creates a WebApp's Deployment and Service with its own permissions,
 * so a user who may only write WebApps must get no Service type or replica count that the chart's
 * admission.* settings forbid, and the pods Steward has created for them must pass the namespace's
 * Pod Security admission like anyone else's. The chart's own policy, rendered with restrictive
 * values and bound to this class's namespace only, runs on the real API server; the namespace
 * enforces the restricted Pod Security Standard; pods are created by the ReplicaSet controller and
 * run by kwok.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class WebAppDeputyIT {
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final String GROUP = "webapp-editors";
  private static final List<String> POLICY_KINDS = List.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");

  private static String ns;
  private static ApiClient admin;
  private static ApiClient user;
  private static WebApps userWebApps;
  private static List<Map<String, Object>> policyObjects = List.of();
  private static InProcessOperator operator;

  @BeforeAll
  static void setUp(LocalCluster cluster, TestNamespace namespace) throws ApiException {
    ns = namespace.name();
    admin = cluster.adminClient();
    Crds.installWebAppCrd(admin);
    CoreV1Api core = new CoreV1Api(admin);
    PatchUtils.patch(V1Namespace.class, () -> core.patchNamespace(ns, new V1Patch("{\"metadata\":{\"labels\":{"
        + "\"pod-security.kubernetes.io/enforce\":\"restricted\",\"pod-security.kubernetes.io/enforce-version\":\"latest\"}}}"))
        .buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, admin);
    installPolicy();
    String userName = "webapp-user-" + ns;
    grantWebAppsOnly(userName);
    user = LocalCluster.clientFor(cluster.kubeconfigFor(userName, GROUP), "deputy-it-user");
    userWebApps = new WebApps(user, ns);
    operator = InProcessOperator.start(cluster, ns, "deputy-" + ns, Map.of("steward.resync-period", "10s"));
    awaitPolicyActive();
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    for (Map<String, Object> object : policyObjects) {
      policyApi((String) object.get("kind")).delete(Manifests.name(object));
    }
  }

  @Test
  void aUserWhoMayOnlyWriteWebAppsGetsNoServiceTypeOrReplicaCountTheSettingsForbid() throws ApiException {
    // Only WebApps: the user cannot create the Deployment themselves.
    ApiException noDeployments = thrown(() -> new AppsV1Api(user).createNamespacedDeployment(ns, deployment("direct")).execute());
    assertThat(noDeployments.getCode()).isEqualTo(403);

    assertRefused(userWebApps.tryCreate("lb", WebApps.spec("nginx:1.27", 1, 80).withServiceType(WebAppSpec.ServiceType.LoadBalancer)),
        "spec.serviceType LoadBalancer is not allowed here: allowed types are ClusterIP");
    assertRefused(userWebApps.tryCreate("np", WebApps.spec("nginx:1.27", 1, 80).withServiceType(WebAppSpec.ServiceType.NodePort)),
        "spec.serviceType NodePort is not allowed here: allowed types are ClusterIP");
    assertRefused(userWebApps.tryCreate("many", WebApps.spec("nginx:1.27", 4, 80)),
        "spec.replicas 4 is more than allowed here: at most 3");

    // Within the limits all is well, and Steward builds what was asked.
    userWebApps.create("within", WebApps.spec("nginx:1.27", 3, 80));
    awaitStatus("within", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));
    assertThat(new CoreV1Api(admin).readNamespacedService("within", ns).execute().getSpec().getType()).isEqualTo("ClusterIP");

    // Updates, through the resource and through its scale subresource (kubectl scale), are checked too.
    assertRefused(tryUpdate("within", s -> s.withServiceType(WebAppSpec.ServiceType.NodePort)),
        "spec.serviceType NodePort is not allowed here: allowed types are ClusterIP");
    assertRefused(tryUpdate("within", s -> s.withReplicas(10)), "spec.replicas 10 is more than allowed here: at most 3");
    ApiException scaledUp = thrown(() -> scale("within", 5));
    assertThat(scaledUp.getCode()).isEqualTo(403);
    assertThat(scaledUp.getResponseBody()).contains("spec.replicas 5 is more than allowed here: at most 3");
    scale("within", 2);

    awaitStatus("within", w -> {
      assertThat(w.getStatus().observedGeneration()).isEqualTo(w.getMetadata().getGeneration());
      assertThat(w.getStatus().availableReplicas()).isEqualTo(2);
    });
    V1Deployment deployment = new AppsV1Api(admin).readNamespacedDeployment("within", ns).execute();
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(new CoreV1Api(admin).readNamespacedService("within", ns).execute().getSpec().getType()).isEqualTo("ClusterIP");
    for (String refused : List.of("lb", "np", "many")) {
      assertThat(thrown(() -> userWebApps.get(refused)).getCode()).as("WebApp %s", refused).isEqualTo(404);
    }
  }

  @Test
  void podsOfAWebAppRunInANamespaceThatEnforcesTheRestrictedStandard() throws ApiException {
    userWebApps.create("restricted", WebApps.spec("nginx:1.27", 2, 8080));

    // The ReplicaSet controller creates the pods (Pod Security admission refuses what breaks the
    // standard), kwok runs them, and the Deployment becomes Available.
    WebApp ready = awaitStatus("restricted", w -> {
      assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready);
      assertThat(w.getStatus().availableReplicas()).isEqualTo(2);
    });
    assertThat(ready.getStatus().observedGeneration()).isEqualTo(ready.getMetadata().getGeneration());
    assertThat(new AppsV1Api(admin).readNamespacedDeployment("restricted", ns).execute().getStatus().getConditions())
        .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Available=True"));
    List<V1Pod> pods = pods("restricted");
    assertThat(pods).hasSize(2);
    for (V1Pod pod : pods) {
      // No service-account token: the ServiceAccount admission plugin adds its volume unless told not to.
      assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
      assertThat(pod.getSpec().getVolumes()).as("volumes of %s", pod.getMetadata().getName()).isNullOrEmpty();
    }
    assertThat(failedCreates("restricted")).isEmpty();
  }

  @Test
  void runningAsRootIsForTheNamespaceToAllowNotForSteward() throws ApiException {
    userWebApps.create("root", WebApps.spec("nginx:1.27", 1, 80).withRunAsNonRoot(false));

    await().atMost(CONVERGE).untilAsserted(() -> assertThat(failedCreates("root"))
        .anySatisfy(m -> assertThat(m).contains("violates PodSecurity \"restricted:latest\"", "runAsNonRoot != true")));
    assertThat(pods("root")).isEmpty();
    assertThat(userWebApps.get("root").getStatus().phase()).isNotEqualTo(Phase.Ready);
  }

  // ---- set-up ------------------------------------------------------------------------------------

  /** The chart's policy and binding, rendered with restrictive values and bound to this namespace only. */
  private static void installPolicy() {
    Manifests chart = StewardChart.template("deputy-" + ns.substring(ns.length() - 4), "steward-system", Map.of(
        "admission", Map.of("serviceTypes", List.of("ClusterIP"), "maxReplicas", 3),
        "watchNamespaces", List.of(ns)));
    List<Map<String, Object>> objects = new ArrayList<>();
    for (String kind : POLICY_KINDS) {
      Map<String, Object> object = chart.single(kind, "webapp-limits");
      KubernetesApiResponse<DynamicKubernetesObject> created =
          policyApi(kind).create(new DynamicKubernetesObject(Manifests.json(object)));
      assertThat(created.isSuccess()).as("create %s: %s", kind, created.getStatus()).isTrue();
      objects.add(object);
    }
    policyObjects = objects;
  }

  private static DynamicKubernetesApi policyApi(String kind) {
    String plural = kind.equals("ValidatingAdmissionPolicy") ? "validatingadmissionpolicies" : "validatingadmissionpolicybindings";
    return new DynamicKubernetesApi("admissionregistration.k8s.io", "v1", plural, admin);
  }

  /** Policies take effect a moment after they are created: wait until a dry run is refused. */
  private static void awaitPolicyActive() {
    WebApps adminWebApps = new WebApps(admin, ns);
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> adminWebApps.api()
        .create(new WebApp().metadata(new V1ObjectMeta().name("probe").namespace(ns)).spec(WebApps.spec("nginx", 4, null)),
            new CreateOptions().dryRun("All"))
        .getHttpStatusCode() == 403);
  }

  private static void grantWebAppsOnly(String userName) throws ApiException {
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(admin);
    rbac.createNamespacedRole(ns, new V1Role().metadata(new V1ObjectMeta().name("webapp-editor")).rules(List.of(
        new V1PolicyRule().apiGroups(List.of("steward.io")).resources(List.of("webapps"))
            .verbs(List.of("get", "list", "watch", "create", "update", "patch", "delete")),
        new V1PolicyRule().apiGroups(List.of("steward.io")).resources(List.of("webapps/scale"))
            .verbs(List.of("get", "update", "patch"))))).execute();
    rbac.createNamespacedRoleBinding(ns, new V1RoleBinding().metadata(new V1ObjectMeta().name("webapp-editor"))
        .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("Role").name("webapp-editor"))
        .subjects(List.of(new RbacV1Subject().kind("User").apiGroup("rbac.authorization.k8s.io").name(userName))))
        .execute();
  }

  // ---- helpers -----------------------------------------------------------------------------------

  private static void scale(String name, int replicas) throws ApiException {
    CustomObjectsApi customObjects = new CustomObjectsApi(user);
    PatchUtils.patch(Object.class, () -> customObjects.patchNamespacedCustomObjectScale(WebApp.GROUP, WebApp.VERSION, ns,
            WebApp.PLURAL, name, new V1Patch("{\"spec\":{\"replicas\":" + replicas + "}}")).buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, user);
  }

  private static KubernetesApiResponse<WebApp> tryUpdate(String name, UnaryOperator<WebAppSpec> change) throws ApiException {
    WebApp current = userWebApps.get(name);
    return userWebApps.api().update(current.spec(change.apply(current.getSpec())));
  }

  private static void assertRefused(KubernetesApiResponse<WebApp> response, String message) {
    assertThat(response.isSuccess()).as("created although the settings forbid it").isFalse();
    assertThat(response.getHttpStatusCode()).isEqualTo(403);
    assertThat(response.getStatus().getMessage()).contains(message).contains("ValidatingAdmissionPolicy");
  }

  private static WebApp awaitStatus(String name, java.util.function.Consumer<WebApp> check) {
    return await().atMost(CONVERGE).ignoreExceptions().until(() -> {
      WebApp webApp = new WebApps(admin, ns).get(name);
      check.accept(webApp);
      return webApp;
    }, w -> true);
  }

  private static List<V1Pod> pods(String webApp) throws ApiException {
    return new CoreV1Api(admin).listNamespacedPod(ns).labelSelector("app.kubernetes.io/instance=" + webApp)
        .execute().getItems();
  }

  /** Messages of FailedCreate events of the WebApp's ReplicaSets (their names start with the Deployment's). */
  private static List<String> failedCreates(String webApp) throws ApiException {
    return new CoreV1Api(admin).listNamespacedEvent(ns).fieldSelector("reason=FailedCreate").execute().getItems().stream()
        .filter(e -> "ReplicaSet".equals(e.getInvolvedObject().getKind())
            && e.getInvolvedObject().getName().startsWith(webApp + "-"))
        .map(CoreV1Event::getMessage).toList();
  }

  private static V1Deployment deployment(String name) {
    Map<String, String> labels = Map.of("app", name);
    return new V1Deployment().metadata(new V1ObjectMeta().name(name).labels(labels))
        .spec(new V1DeploymentSpec().replicas(1).selector(new V1LabelSelector().matchLabels(labels))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("nginx"))))));
  }

  private interface Call {
    void run() throws Exception;
  }

  private static ApiException thrown(Call call) {
    try {
      call.run();
    } catch (ApiException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected an ApiException", e);
    }
    throw new AssertionError("expected the API server to refuse this");
  }
}
