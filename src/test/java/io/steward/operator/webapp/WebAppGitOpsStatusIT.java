package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.steward.operator.support.ArgoCdHealth;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.Kstatus;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What GitOps tools conclude from a WebApp's status: kstatus (Flux, kpt) and the Argo CD health
 * check Steward ships, each run on the WebApp document read from the API server once Steward
 * reported the situation (by the conditions Steward always wrote: Ready, Progressing, Degraded).
 * Fails on a status without Reconciling/Stalled: kstatus reads a WebApp that is Degraded but not
 * Stalled as InProgress, never Failed.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class WebAppGitOpsStatusIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  /** An image a ValidatingAdmissionPolicy refuses in Deployments: a spec the API server refuses. */
  private static final String REFUSED_IMAGE = "refused.example/app:1";
  private static InProcessOperator operator;
  private static WebApps webApps;
  private static DynamicKubernetesApi rawWebApps;
  private static AppsV1Api apps;
  private static CoreV1Api core;
  private static String ns;

  @BeforeAll
  static void startOperator(LocalCluster cluster, TestNamespace namespace) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    ns = namespace.name();
    refuseImageInDeployments(cluster);
    operator = InProcessOperator.start(cluster, ns, "gitops-" + ns, Map.of("steward.resync-period", "2s"));
    webApps = new WebApps(cluster.adminClient(), ns);
    rawWebApps = new DynamicKubernetesApi(WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL, cluster.adminClient());
    apps = new AppsV1Api(cluster.adminClient());
    core = new CoreV1Api(cluster.adminClient());
  }

  @AfterAll
  static void stopOperator() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void readyIsCurrentAndHealthy() throws ApiException {
    webApps.create("ready", WebApps.spec("nginx:1.27", 1, 80));

    JsonObject document = awaitDocument("ready", conditionIs("Ready", "True"));

    assertVerdicts(document, "Current", "Healthy");
  }

  @Test
  void rollingOutIsInProgressAndProgressing_thenProgressDeadlineExceededIsFailedAndDegraded() throws ApiException {
    // More CPU than any fake node has: the pod stays Pending, the rollout never completes.
    webApps.create("stuck", WebApps.spec("nginx:1.27", 1, null).withResources(
        new WebAppSpec.ResourceSettings(Map.of("cpu", new Quantity("1000")), null)));

    JsonObject rollingOut = awaitDocument("stuck", conditionIs("Progressing", "True").and(conditionIs("Ready", "False"))
        .and(d -> deploymentExists("stuck")));
    assertVerdicts(rollingOut, "InProgress", "Progressing");

    // Steward does not set progressDeadlineSeconds: shorten it as another client would.
    PatchUtils.patch(V1Deployment.class, () -> apps.patchNamespacedDeployment("stuck", ns,
        new V1Patch("{\"spec\":{\"progressDeadlineSeconds\":2}}")).buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, apps.getApiClient());
    JsonObject deadline = awaitDocument("stuck", conditionIs("Degraded", "True"));

    assertVerdicts(deadline, "Failed", "Degraded");
    assertThat(WebApps.condition(deadline, "Stalled").get("reason").getAsString()).isEqualTo("ProgressDeadlineExceeded");
  }

  @Test
  void namesakeConflictIsFailedAndDegraded() throws ApiException {
    Map<String, String> labels = Map.of("app", "theirs");
    apps.createNamespacedDeployment(ns, new V1Deployment()
        .metadata(new V1ObjectMeta().name("taken").labels(labels))
        .spec(new V1DeploymentSpec().replicas(1).selector(new V1LabelSelector().matchLabels(labels))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("theirs:1")))))))
        .execute();
    webApps.create("taken", WebApps.spec("nginx:1.27", 1, null));

    JsonObject document = awaitDocument("taken", conditionIs("Degraded", "True"));

    assertVerdicts(document, "Failed", "Degraded");
    assertThat(WebApps.condition(document, "Stalled").get("reason").getAsString()).isEqualTo("ResourceConflict");
  }

  @Test
  void refusedSpecIsFailedRecordedOnceNotRetriedAndClearedByANewGeneration(LocalCluster cluster) throws ApiException {
    webApps.create("refused", WebApps.spec(REFUSED_IMAGE, 1, null));

    JsonObject document = awaitDocument("refused", conditionIs("Degraded", "True"));
    Instant stalledAt = Instant.now();

    assertVerdicts(document, "Failed", "Degraded");
    assertThat(WebApps.condition(document, "Stalled").get("reason").getAsString()).isEqualTo("InvalidSpec");
    assertThat(WebApps.condition(document, "Stalled").get("message").getAsString()).contains("not allowed here");

    // Terminal: several resyncs later, no further write by Steward for this WebApp, and one Event.
    await().pollDelay(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(20)).until(() -> true);
    List<AuditLog.Entry> writes = cluster.auditLog().writesBy(operator.userAgent(), stalledAt).stream()
        .filter(e -> Set.of("webapps", "deployments", "services").contains(e.resource()))
        .filter(e -> ns.equals(e.namespace()) && "refused".equals(e.name()))
        .toList();
    assertThat(writes).as("writes by Steward after the refused spec was reported").isEmpty();
    List<CoreV1Event> warnings = core.listNamespacedEvent(ns).fieldSelector("involvedObject.name=refused").execute()
        .getItems().stream().filter(e -> "Warning".equals(e.getType())).toList();
    assertThat(warnings).singleElement().satisfies(e -> {
      assertThat(e.getReason()).isEqualTo("InvalidSpec");
      assertThat(e.getCount()).isEqualTo(1);
    });

    webApps.updateSpec("refused", s -> s.withImage("nginx:1.27"));
    JsonObject fixed = awaitDocument("refused", conditionIs("Ready", "True"));
    assertThat(WebApps.condition(fixed, "Stalled").get("status").getAsString()).isEqualTo("False");
    assertVerdicts(fixed, "Current", "Healthy");
  }

  private static void assertVerdicts(JsonObject document, String kstatus, String argoCd) {
    String conditions = String.valueOf(document.getAsJsonObject("status").get("conditions"));
    assertThat(Kstatus.judge(document).status()).as("kstatus on %s", conditions).isEqualTo(kstatus);
    assertThat(ArgoCdHealth.judge(document).status()).as("Argo CD on %s", conditions).isEqualTo(argoCd);
  }

  /** The WebApp as the API server has it, once Steward has reported on its current generation. */
  private static JsonObject awaitDocument(String name, Predicate<JsonObject> wanted) {
    return await().atMost(CONVERGE).until(() -> rawWebApps.get(ns, name).getObject().getRaw(),
        d -> current(d) && wanted.test(d));
  }

  private static boolean current(JsonObject document) {
    JsonObject status = document.getAsJsonObject("status");
    return status != null && status.has("observedGeneration")
        && status.get("observedGeneration").getAsLong()
        == document.getAsJsonObject("metadata").get("generation").getAsLong();
  }

  private static Predicate<JsonObject> conditionIs(String type, String status) {
    return d -> {
      JsonObject c = WebApps.condition(d, type);
      return c != null && status.equals(c.get("status").getAsString());
    };
  }

  private static boolean deploymentExists(String name) {
    try {
      apps.readNamespacedDeployment(name, ns).execute();
      return true;
    } catch (ApiException e) {
      return false;
    }
  }

  /** A policy engine's refusal: Deployments in the test namespace may not run {@link #REFUSED_IMAGE}. */
  private static void refuseImageInDeployments(LocalCluster cluster) throws ApiException {
    DynamicKubernetesApi policies = new DynamicKubernetesApi("admissionregistration.k8s.io", "v1",
        "validatingadmissionpolicies", cluster.adminClient());
    DynamicKubernetesApi bindings = new DynamicKubernetesApi("admissionregistration.k8s.io", "v1",
        "validatingadmissionpolicybindings", cluster.adminClient());
    String name = "refuse-image-" + ns;
    policies.create(new DynamicKubernetesObject(JsonParser.parseString("""
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
         "metadata":{"name":"%s"},
         "spec":{"failurePolicy":"Fail",
           "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
             "operations":["CREATE","UPDATE"],"resources":["deployments"]}]},
           "validations":[{"expression":"object.spec.template.spec.containers.all(c, c.image != '%s')",
             "message":"image %s is not allowed here","reason":"Invalid"}]}}
        """.formatted(name, REFUSED_IMAGE, REFUSED_IMAGE)).getAsJsonObject())).throwsApiException();
    bindings.create(new DynamicKubernetesObject(JsonParser.parseString("""
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
         "metadata":{"name":"%s"},
         "spec":{"policyName":"%s","validationActions":["Deny"],
           "matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"%s"}}}}}
        """.formatted(name, name, ns)).getAsJsonObject())).throwsApiException();
    // The policy takes effect once the API server's policy informer has it: probe with a dry run.
    AppsV1Api probe = new AppsV1Api(cluster.adminClient());
    Map<String, String> labels = Map.of("app", "probe");
    V1Deployment refused = new V1Deployment().metadata(new V1ObjectMeta().name("probe").labels(labels))
        .spec(new V1DeploymentSpec().selector(new V1LabelSelector().matchLabels(labels))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image(REFUSED_IMAGE))))));
    await().atMost(CONVERGE).pollInterval(Duration.ofMillis(500)).until(() -> {
      try {
        probe.createNamespacedDeployment(ns, refused).dryRun("All").execute();
        return false;
      } catch (ApiException e) {
        return e.getCode() == 422;
      }
    });
  }
}
