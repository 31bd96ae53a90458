package io.steward.operator.webapp;

import static io.steward.operator.webapp.AdmissionMutationIT.container;
import static io.steward.operator.webapp.AdmissionMutationIT.envNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.RawApi;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.io.FileReader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which fields of a Deployment are Steward's: those its spec sets, and those it set before and the
 * spec has since dropped (which it removes). What other clients set is theirs and stays; a change to
 * one of Steward's own fields is reverted. Judged from the objects on the server and the audit log.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class FieldOwnershipIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static InProcessOperator operator;
  private static WebApps webApps;
  private static RawApi raw;
  private static String ns;

  @BeforeAll
  static void start(LocalCluster cluster, TestNamespace namespace) {
    Crds.installWebAppCrd(cluster.adminClient());
    ns = namespace.name();
    raw = new RawApi(cluster.adminClient());
    operator = InProcessOperator.start(cluster, ns, "owner-" + ns, Map.of("steward.resync-period", "2s"));
    webApps = new WebApps(cluster.adminClient(), ns);
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  private static WebAppSpec full() {
    return new WebAppSpec("nginx:1.27", 2, 8080, null,
        List.of(new WebAppSpec.EnvVar("A", "1"), new WebAppSpec.EnvVar("B", "2")),
        new WebAppSpec.ResourceSettings(Map.of("cpu", new Quantity("50m")), Map.of("memory", new Quantity("128Mi"))),
        "/healthz", false);
  }

  @Test
  void othersFieldsSurviveDroppedFieldsGoAndDriftIsReverted(LocalCluster cluster) throws Exception {
    webApps.create("shop", full());
    awaitStatus("shop", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));

    // Another client's fields: an env var as `kubectl set env` adds it, an annotation, a second container.
    raw.strategicPatch(path("shop"), "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\","
        + "\"env\":[{\"name\":\"EXTRA\",\"value\":\"x\"}]}]}}}}", "kubectl-set");
    raw.mergePatch(path("shop"), "{\"metadata\":{\"annotations\":{\"team.example.com/owner\":\"ops\"}}}", "kubectl-annotate");
    raw.strategicPatch(path("shop"), "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"logger\","
        + "\"image\":\"busybox:1.36\"}]}}}}", "kubectl-patch");
    Instant othersDone = Instant.now();
    Thread.sleep(6_000); // three resyncs, each a pass

    JsonObject kept = deployment("shop");
    assertThat(envNames(container(kept, "app"))).containsExactlyInAnyOrder("A", "B", "EXTRA");
    assertThat(kept.getAsJsonObject("metadata").getAsJsonObject("annotations").get("team.example.com/owner").getAsString())
        .isEqualTo("ops");
    assertThat(container(kept, "logger")).isNotNull();
    assertThat(stewardWrites(cluster, "shop", othersDone)).as("Steward's writes after others added their fields").isEmpty();

    // The spec drops an env var, the memory limit and the port: Steward set them, so it removes them.
    webApps.updateSpec("shop", s -> new WebAppSpec(s.image(), s.replicas(), null, null,
        List.of(new WebAppSpec.EnvVar("A", "1")), new WebAppSpec.ResourceSettings(Map.of("cpu", new Quantity("50m")), null),
        null, false));
    awaitDeployment("shop", d -> {
      JsonObject app = container(d, "app");
      assertThat(envNames(app)).containsExactlyInAnyOrder("A", "EXTRA");
      assertThat(app.getAsJsonObject("resources").has("limits")).as("limits").isFalse();
      assertThat(app.has("ports")).as("ports").isFalse();
      assertThat(app.has("readinessProbe")).as("readiness probe").isFalse();
    });
    JsonObject afterDrop = deployment("shop");
    assertThat(container(afterDrop, "logger")).isNotNull();
    assertThat(afterDrop.getAsJsonObject("metadata").getAsJsonObject("annotations").has("team.example.com/owner")).isTrue();

    // Drift in Steward's own fields is reverted, and only those.
    raw.strategicPatch(path("shop"), "{\"spec\":{\"replicas\":5,\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\","
        + "\"image\":\"evil:latest\",\"env\":[{\"name\":\"A\",\"value\":\"tampered\"}]}]}}}}", "intruder");
    awaitDeployment("shop", d -> {
      assertThat(d.getAsJsonObject("spec").get("replicas").getAsInt()).isEqualTo(2);
      JsonObject app = container(d, "app");
      assertThat(app.get("image").getAsString()).isEqualTo("nginx:1.27");
      assertThat(app.getAsJsonArray("env").toString()).contains("{\"name\":\"A\",\"value\":\"1\"}");
      assertThat(envNames(app)).containsExactlyInAnyOrder("A", "EXTRA");
    });
  }

  @Test
  void aDeploymentRelabelledOutOfTheCacheIsTakenBackAndFollowsTheSpecAgain() throws Exception {
    webApps.create("relabelled", full());
    awaitStatus("relabelled", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));

    // The informer of owned Deployments selects managed-by=steward: this one leaves its cache.
    raw.mergePatch(path("relabelled"), "{\"metadata\":{\"labels\":{\"" + WebAppLabels.MANAGED_BY
        + "\":\"someone-else\"}}}", "kubectl-label");
    webApps.updateSpec("relabelled", s -> s.withEnv(List.of(new WebAppSpec.EnvVar("A", "2"))));

    awaitDeployment("relabelled", d -> {
      assertThat(d.getAsJsonObject("metadata").getAsJsonObject("labels").get(WebAppLabels.MANAGED_BY).getAsString())
          .isEqualTo(WebAppLabels.STEWARD);
      assertThat(container(d, "app").getAsJsonArray("env").toString()).contains("{\"name\":\"A\",\"value\":\"2\"}");
    });
    awaitStatus("relabelled", w -> {
      assertThat(w.getStatus().observedGeneration()).isEqualTo(w.getMetadata().getGeneration());
      assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready);
    });
  }

  @Test
  void aDeploymentAnEarlierVersionCreatedConvergesWithOneWriteThenStaysQuiet(LocalCluster cluster) throws Exception {
    // Paused, Steward writes nothing owned; meanwhile "the previous version" creates the Deployment as
    // it did: a POST of the whole object, by a client whose User-Agent is steward/..., no field manager.
    WebApp webApp = webApps.create("legacy", full().withPaused(true));
    awaitStatus("legacy", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Paused));
    ApiClient previous = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(
        new FileReader(cluster.kubeconfigFor("steward-operator").toFile()))).build();
    previous.setUserAgent("steward/previous-version");
    V1Deployment old = new DeploymentResource().desired(webApp);
    new GenericKubernetesApi<>(V1Deployment.class, V1DeploymentList.class, "apps", "v1", "deployments", previous)
        .create(old).throwsApiException();

    // Once the rollout of that Deployment settled, upgraded Steward takes over; the spec now drops env B.
    awaitDeployment("legacy", d -> assertThat(d.getAsJsonObject("status").get("availableReplicas").getAsInt()).isEqualTo(2));
    Thread.sleep(1_000);
    Instant resumed = Instant.now();
    webApps.updateSpec("legacy", s -> s.withPaused(false).withEnv(List.of(new WebAppSpec.EnvVar("A", "1"))));
    awaitDeployment("legacy", d -> assertThat(envNames(container(d, "app"))).containsExactly("A"));
    awaitStatus("legacy", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));
    Thread.sleep(6_000); // three resyncs

    assertThat(stewardWrites(cluster, "legacy", resumed)).as("Steward's writes to the earlier version's objects")
        .filteredOn(e -> e.code() < 300).extracting(e -> e.verb() + " " + e.resource())
        .containsExactlyInAnyOrder("patch deployments", "create services");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static String path(String name) {
    return "/apis/apps/v1/namespaces/" + ns + "/deployments/" + name;
  }

  private static JsonObject deployment(String name) {
    return raw.get(path(name));
  }

  private static List<AuditLog.Entry> stewardWrites(LocalCluster cluster, String name, Instant since) {
    return cluster.auditLog().writesBy(operator.userAgent(), since).stream()
        .filter(e -> ns.equals(e.namespace()) && name.equals(e.name()))
        .filter(e -> e.resource().equals("deployments") || e.resource().equals("services"))
        .toList();
  }

  private static void awaitDeployment(String name, Consumer<JsonObject> check) {
    await().atMost(CONVERGE).ignoreExceptions().untilAsserted(() -> check.accept(deployment(name)));
  }

  private static WebApp awaitStatus(String name, Consumer<WebApp> check) {
    return await().atMost(CONVERGE).ignoreExceptions().until(() -> {
      WebApp w = webApps.get(name);
      check.accept(w);
      return w;
    }, w -> true);
  }

}
