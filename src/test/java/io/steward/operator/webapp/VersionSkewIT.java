package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.steward.operator.deploy.ServiceAccountAccess;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.RawApi;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Steward on an API server newer than its client's models: the test cluster runs with the
 * {@code GenericWorkload} feature gate, which adds {@code spec.schedulingGroup} to Pod specs, a field
 * client-java 25 does not know. Another client sets it on one WebApp's Deployment. Steward's
 * informers must keep working for every WebApp, its writes must leave the field alone, and readiness
 * must tell the truth, also when an informer really cannot list.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class VersionSkewIT {
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final String NEWER_FIELD = "schedulingGroup";

  @Test
  void aFieldTheModelsDoNotKnowBreaksNoInformerAndSurvivesStewardsWrites(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String ns = namespace.name();
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    RawApi raw = new RawApi(cluster.adminClient());
    try (InProcessOperator operator = InProcessOperator.start(cluster, ns, "skew-" + ns, Map.of())) {
      webApps.create("skewed", WebApps.spec("nginx:1.27", 1, 80));
      webApps.create("plain", WebApps.spec("nginx:1.27", 1, 80));
      awaitConverged(webApps, raw, ns, "nginx:1.27", "skewed", "plain");

      // A newer controller sets the field, as a plain JSON merge patch.
      String path = "/apis/apps/v1/namespaces/" + ns + "/deployments/skewed";
      raw.mergePatch(path, "{\"spec\":{\"template\":{\"spec\":{\"" + NEWER_FIELD + "\":{\"podGroupName\":\"batch-1\"}}}}}",
          "newer-controller");
      assertThat(podSpec(raw.get(path)).has(NEWER_FIELD)).as("the API server kept the field (feature gate on)").isTrue();

      // Both WebApps' spec changes still reach their Deployments and statuses.
      webApps.updateSpec("skewed", s -> s.withImage("nginx:1.28").withReplicas(2));
      webApps.updateSpec("plain", s -> s.withImage("nginx:1.28"));
      awaitConverged(webApps, raw, ns, "nginx:1.28", "skewed", "plain");

      assertThat(podSpec(raw.get(path)).getAsJsonObject(NEWER_FIELD).get("podGroupName").getAsString())
          .as("the field after Steward's write").isEqualTo("batch-1");
      HttpResponse<String> readiness = actuator(operator.port(), "health/readiness");
      assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
      assertThat(webApps.get("plain").getStatus().phase()).isIn(Phase.Ready, Phase.Progressing);
    }
  }

  @Test
  void anInformerThatCannotListShowsInReadinessWithItsError(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String ns = namespace.name();
    String forbidden = "default";
    // A service account that may do Steward's work in the test namespace but nothing in "default".
    new CoreV1Api(cluster.adminClient()).createNamespacedServiceAccount(ns,
        new V1ServiceAccount().metadata(new V1ObjectMeta().name("limited"))).execute();
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(cluster.adminClient());
    rbac.createNamespacedRole(ns, new V1Role().metadata(new V1ObjectMeta().name("limited")).rules(List.of(
        new V1PolicyRule().apiGroups(List.of("steward.io", "apps", "", "coordination.k8s.io", "events.k8s.io"))
            .resources(List.of("*")).verbs(List.of("*"))))).execute();
    rbac.createNamespacedRoleBinding(ns, new V1RoleBinding().metadata(new V1ObjectMeta().name("limited"))
        .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("Role").name("limited"))
        .subjects(List.of(new RbacV1Subject().kind("ServiceAccount").name("limited").namespace(ns)))).execute();
    Path kubeconfig = new ServiceAccountAccess(cluster.adminClient(), ns, "limited")
        .writeKubeconfig(cluster, cluster.directory().resolve("limited-" + ns + ".kubeconfig"));

    try (InProcessOperator operator = InProcessOperator.start(cluster, ns, "limited-" + ns, Map.of(
        "steward.kubeconfig", kubeconfig.toString(), "steward.namespaces", ns + "," + forbidden,
        "steward.leader-election.enabled", "false"))) {
      JsonObject informers = await().atMost(Duration.ofSeconds(60)).until(
          () -> component(actuator(operator.port(), "health/readiness"), "informers"),
          c -> c.getAsJsonObject("details") != null && c.getAsJsonObject("details").has("failing"));
      assertThat(informers.get("status").getAsString()).isEqualTo("OUT_OF_SERVICE");
      assertThat(informers.getAsJsonObject("details").getAsJsonObject("failing").toString())
          .contains("deployments in namespace " + forbidden).contains("403").doesNotContain("namespace " + ns + "\"");
      assertThat(actuator(operator.port(), "prometheus").body())
          .contains("steward_informer_failing{informer=\"deployments in namespace " + forbidden + "\"} 1")
          .contains("steward_informer_failing{informer=\"deployments in namespace " + ns + "\"} 0");
    }
  }

  /**
   * Every named WebApp's status describes its latest spec and its Deployment runs {@code image}; read
   * as plain JSON, so the test's own client cannot trip over the newer field.
   */
  private static void awaitConverged(WebApps webApps, RawApi raw, String ns, String image, String... names) {
    await().atMost(CONVERGE).ignoreExceptions().untilAsserted(() -> {
      for (String name : names) {
        var webApp = webApps.get(name);
        assertThat(webApp.getStatus().observedGeneration()).as("%s observedGeneration", name)
            .isEqualTo(webApp.getMetadata().getGeneration());
        JsonObject deployment = raw.get("/apis/apps/v1/namespaces/" + ns + "/deployments/" + name);
        assertThat(podSpec(deployment).getAsJsonArray("containers").get(0).getAsJsonObject().get("image").getAsString())
            .as("%s image", name).isEqualTo(image);
      }
    });
  }

  private static JsonObject podSpec(JsonObject deployment) {
    return deployment.getAsJsonObject("spec").getAsJsonObject("template").getAsJsonObject("spec");
  }

  private static JsonObject component(HttpResponse<String> health, String name) {
    return JsonParser.parseString(health.body()).getAsJsonObject().getAsJsonObject("components").getAsJsonObject(name);
  }

  private static HttpResponse<String> actuator(int port, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/" + path))
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
