package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.util.PatchUtils;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Steward against a real control plane: what a user sees after creating, changing and breaking WebApps. */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class WebAppOperatorIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static InProcessOperator operator;
  private static WebApps webApps;
  private static AppsV1Api apps;
  private static CoreV1Api core;
  private static String ns;

  @BeforeAll
  static void startOperator(LocalCluster cluster, TestNamespace namespace) {
    Crds.installWebAppCrd(cluster.adminClient());
    ns = namespace.name();
    operator = InProcessOperator.start(cluster, ns, "it-" + ns, Map.of("steward.resync-period", "2s", "logging.level.io.steward", "DEBUG"));
    webApps = new WebApps(cluster.adminClient(), ns);
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
  void createsOwnedDeploymentAndServiceAndReportsReady() throws ApiException {
    WebApp created = webApps.create("shop", WebApps.spec("nginx:1.27", 2, 8080));

    V1Deployment deployment = awaitDeployment("shop", d -> assertThat(d.getSpec().getReplicas()).isEqualTo(2));
    assertThat(deployment.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
      assertThat(ref.getUid()).isEqualTo(created.getMetadata().getUid());
      assertThat(ref.getController()).isTrue();
    });
    assertThat(deployment.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "steward")
        .containsEntry("app.kubernetes.io/instance", "shop");
    V1Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).isEqualTo("nginx:1.27");
    assertThat(container.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8080));

    V1Service service = await().atMost(CONVERGE).ignoreExceptions()
        .until(() -> core.readNamespacedService("shop", ns).execute(), svc -> true);
    assertThat(service.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(ref -> assertThat(ref.getUid()).isEqualTo(created.getMetadata().getUid()));
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getPort()).isEqualTo(8080));

    // kwok runs the pods, so the rollout completes and the WebApp becomes Ready.
    WebApp ready = awaitStatus("shop", w -> {
      assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready);
      assertThat(w.getStatus().observedGeneration()).isEqualTo(w.getMetadata().getGeneration());
      assertThat(w.getStatus().availableReplicas()).isEqualTo(2);
    });
    assertThat(ready.getStatus().url()).isEqualTo("http://shop." + ns + ".svc:8080");
    assertThat(condition(ready, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(ready, "Progressing").getStatus()).isEqualTo("False");
    assertThat(condition(ready, "Degraded").getStatus()).isEqualTo("False");
    assertThat(condition(ready, "Ready").getObservedGeneration()).isEqualTo(ready.getMetadata().getGeneration());
  }

  @Test
  void specChangeRollsTheDeploymentAndAdvancesObservedGeneration() throws ApiException {
    webApps.create("roll", WebApps.spec("nginx:1.27", 1, null));
    awaitStatus("roll", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));

    WebApp changed = webApps.updateSpec("roll", s -> s.withImage("nginx:1.28").withReplicas(3)
        .withEnv(List.of(new WebAppSpec.EnvVar("MODE", "blue"))));
    long generation = changed.getMetadata().getGeneration();

    V1Deployment rolled = awaitDeployment("roll", d -> {
      assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.28");
      assertThat(d.getSpec().getReplicas()).isEqualTo(3);
    });
    assertThat(rolled.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .singleElement().satisfies(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("MODE=blue"));
    awaitStatus("roll", w -> {
      assertThat(w.getStatus().observedGeneration()).isEqualTo(generation);
      assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready);
      assertThat(w.getStatus().availableReplicas()).isEqualTo(3);
    });

    // Removing the env var removes it from the Deployment too (owned fields are owned whole).
    webApps.updateSpec("roll", s -> s.withEnv(null));
    awaitDeployment("roll", d -> assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .isNullOrEmpty());
  }

  @Test
  void driftInOwnedDeploymentIsReverted() throws Exception {
    webApps.create("drift", WebApps.spec("nginx:1.27", 2, null));
    awaitStatus("drift", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));

    patchDeployment("drift", "{\"spec\":{\"replicas\":5,\"template\":{\"spec\":{\"containers\":"
        + "[{\"name\":\"app\",\"image\":\"evil:latest\"}]}}}}");

    awaitDeployment("drift", d -> {
      assertThat(d.getSpec().getReplicas()).isEqualTo(2);
      assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
    });
  }

  @Test
  void aNewWebAppCostsOneCreatePerOwnedObjectAndNoConflicts(LocalCluster cluster) throws ApiException {
    Instant since = Instant.now();
    webApps.create("lean", WebApps.spec("nginx:1.27", 2, 80));
    awaitStatus("lean", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));

    // The pass after a write reads it back from Steward's own cache, so nothing is sent twice and no
    // write races the informer into a 409; the first objects are created without an Event. (Events
    // are sent in the background, hence the wait.)
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      List<AuditLog.Entry> requests = cluster.auditLog().entries(e -> e.fromUserAgentStartingWith(operator.userAgent())
          && !e.received().isBefore(since) && ns.equals(e.namespace())
          && ("lean".equals(e.name()) || e.name() != null && e.name().startsWith("lean.")));
      assertThat(requests.stream().filter(AuditLog.Entry::mutating)
          .filter(e -> !"webapps".equals(e.resource())) // status patches follow the rollout's steps
          .map(e -> e.verb() + " " + e.resource()))
          .containsExactlyInAnyOrder("create deployments", "create services");
      assertThat(requests).as("requests refused with 409").noneMatch(e -> e.code() == 409);
      assertThat(requests).as("reads that bypass the cache").noneMatch(e -> "get".equals(e.verb()));
    });
  }

  @Test
  void convergedWebAppsCostNoWritesAcrossResyncs(LocalCluster cluster) throws ApiException {
    webApps.create("quiet", WebApps.spec("nginx:1.27", 1, 80));
    awaitStatus("quiet", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));
    await().pollDelay(Duration.ofSeconds(1)).atMost(CONVERGE).until(() -> idleFor(cluster, "quiet", Duration.ofSeconds(2)));

    Instant since = Instant.now();
    long reconcilesBefore = operatorReconciles();
    // Resync period is 2 s: wait for several resyncs, each of which reconciles every WebApp.
    await().pollDelay(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(20)).until(() -> true);

    assertThat(operatorReconciles() - reconcilesBefore).as("reconciles during resyncs").isGreaterThanOrEqualTo(3);
    List<AuditLog.Entry> writes = cluster.auditLog().writesBy(operator.userAgent(), since).stream()
        .filter(e -> Set.of("webapps", "deployments", "services").contains(e.resource()))
        .filter(e -> ns.equals(e.namespace()) && "quiet".equals(e.name()))
        .toList();
    assertThat(writes).as("mutating requests by Steward for a converged WebApp").isEmpty();
  }

  @Test
  void foreignDeploymentWithTheSameNameIsLeftAloneAndReported(LocalCluster cluster) throws ApiException {
    Map<String, String> labels = Map.of("app", "theirs");
    V1Deployment theirs = apps.createNamespacedDeployment(ns, new V1Deployment()
        .metadata(new V1ObjectMeta().name("taken").labels(labels))
        .spec(new V1DeploymentSpec().replicas(1).selector(new V1LabelSelector().matchLabels(labels))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("theirs:1")))))))
        .execute();

    webApps.create("taken", WebApps.spec("nginx:1.27", 3, null));

    WebApp degraded = awaitStatus("taken", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Degraded));
    assertThat(condition(degraded, "Degraded").getReason()).isEqualTo("ResourceConflict");
    assertThat(condition(degraded, "Degraded").getMessage()).contains("Deployment taken");
    V1Deployment after = apps.readNamespacedDeployment("taken", ns).execute();
    assertThat(after.getMetadata().getGeneration()).isEqualTo(theirs.getMetadata().getGeneration());
    assertThat(after.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(after.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("theirs:1");
    // The server's own record: Steward's only write to it was a create refused as AlreadyExists.
    assertThat(cluster.auditLog().entries(e -> e.mutating() && e.fromUserAgentStartingWith(operator.userAgent())
        && "deployments".equals(e.resource()) && "taken".equals(e.name()) && ns.equals(e.namespace())))
        .allSatisfy(e -> assertThat(e.code()).isEqualTo(409));
    await().atMost(CONVERGE).untilAsserted(() -> assertThat(eventReasons("taken")).contains("ResourceConflict"));
  }

  @Test
  void removingThePortDeletesTheServiceAndDeletingTheWebAppCollectsEverything() throws ApiException {
    webApps.create("gone", WebApps.spec("nginx:1.27", 1, 80));
    await().atMost(CONVERGE).ignoreExceptions().until(() -> core.readNamespacedService("gone", ns).execute() != null);

    webApps.updateSpec("gone", s -> s.withPort(null));
    await().atMost(CONVERGE).until(() -> !serviceExists("gone"));
    awaitStatus("gone", w -> assertThat(w.getStatus().url()).isNull());

    webApps.delete("gone");
    await().atMost(CONVERGE).until(() -> !deploymentExists("gone"));
  }

  @Test
  void pausedWebAppIsReportedButNotTouched() throws Exception {
    webApps.create("frozen", WebApps.spec("nginx:1.27", 1, null));
    awaitStatus("frozen", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));
    webApps.updateSpec("frozen", s -> s.withPaused(true).withReplicas(4));
    awaitStatus("frozen", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Paused));
    patchDeployment("frozen", "{\"spec\":{\"replicas\":2}}");

    await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> true);
    assertThat(apps.readNamespacedDeployment("frozen", ns).execute().getSpec().getReplicas()).isEqualTo(2);

    webApps.updateSpec("frozen", s -> s.withPaused(false));
    awaitDeployment("frozen", d -> assertThat(d.getSpec().getReplicas()).isEqualTo(4));
  }

  @Test
  void actuatorReportsHealthLeadershipAndControllerRuntimeMetrics() throws Exception {
    var http = java.net.http.HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + operator.port() + "/actuator/";
    java.util.function.Function<String, java.net.http.HttpResponse<String>> get = path -> {
      try {
        return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + path)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
    webApps.create("metered", WebApps.spec("nginx:1.27", 1, null));
    awaitStatus("metered", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));

    assertThat(get.apply("health/readiness").statusCode()).isEqualTo(200);
    assertThat(get.apply("health/liveness").statusCode()).isEqualTo(200);
    assertThat(get.apply("leader").body()).contains("\"leading\":true").contains("\"holder\":\"it-" + ns + "\"");
    assertThat(get.apply("reconciles").body()).contains("\"success\":");
    String metrics = get.apply("prometheus").body();
    assertThat(metrics)
        .containsPattern("controller_runtime_reconcile_total\\{controller=\"webapp\",result=\"success\"\\} [1-9]")
        .contains("controller_runtime_reconcile_errors_total{controller=\"webapp\"}")
        .contains("controller_runtime_reconcile_time_seconds_bucket{controller=\"webapp\"")
        .contains("controller_runtime_active_workers{controller=\"webapp\"}")
        .contains("controller_runtime_max_concurrent_reconciles{controller=\"webapp\"} 8")
        .contains("workqueue_depth{name=\"webapp\"}")
        .containsPattern("workqueue_adds_total\\{name=\"webapp\"\\} [1-9]")
        .contains("workqueue_retries_total{name=\"webapp\"}")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"webapp\"")
        .contains("leader_election_master_status{name=\"steward-leader\"} 1");
  }

  @Test
  void kubectlShowsTheColumnsAndWaitsForReady(LocalCluster cluster) throws Exception {
    webApps.create("cli", WebApps.spec("nginx:1.27", 2, 80));

    String waited = kubectl(cluster, "wait", "--for=condition=Ready", "webapp/cli", "-n", ns, "--timeout=60s");
    assertThat(waited).contains("webapp.steward.io/cli condition met");
    String table = kubectl(cluster, "get", "webapps", "-n", ns, "cli");
    assertThat(table.lines().findFirst().orElseThrow()).containsPattern("NAME\\s+IMAGE\\s+DESIRED\\s+READY\\s+PHASE\\s+AGE");
    assertThat(table).containsPattern("cli\\s+nginx:1.27\\s+2\\s+2\\s+Ready");
    assertThat(kubectl(cluster, "get", "wa", "-n", ns, "cli", "-o", "jsonpath={.status.url}"))
        .isEqualTo("http://cli." + ns + ".svc:80");
  }

  private static String kubectl(LocalCluster cluster, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("kubectl", "--kubeconfig", cluster.kubeconfig().toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as("kubectl %s: %s", String.join(" ", args), output).isZero();
    return output.strip();
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static V1Deployment awaitDeployment(String name, java.util.function.Consumer<V1Deployment> check) {
    return await().atMost(CONVERGE).ignoreExceptions().until(() -> {
      V1Deployment d = apps.readNamespacedDeployment(name, ns).execute();
      check.accept(d);
      return d;
    }, d -> true);
  }

  private static WebApp awaitStatus(String name, java.util.function.Consumer<WebApp> check) {
    return await().atMost(CONVERGE).ignoreExceptions().until(() -> {
      WebApp w = webApps.get(name);
      check.accept(w);
      return w;
    }, w -> true);
  }

  private static V1Condition condition(WebApp webApp, String type) {
    return Conditions.find(webApp.getStatus().conditionsOrEmpty(), type);
  }

  private static void patchDeployment(String name, String mergePatch) throws ApiException {
    PatchUtils.patch(V1Deployment.class, () -> apps.patchNamespacedDeployment(name, ns, new V1Patch(mergePatch))
        .buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, apps.getApiClient());
  }

  private static List<String> eventReasons(String webApp) throws ApiException {
    return core.listNamespacedEvent(ns).fieldSelector("involvedObject.name=" + webApp).execute().getItems().stream()
        .map(CoreV1Event::getReason).toList();
  }

  private static boolean serviceExists(String name) {
    try {
      core.readNamespacedService(name, ns).execute();
      return true;
    } catch (ApiException e) {
      return e.getCode() != 404;
    }
  }

  private static boolean deploymentExists(String name) {
    try {
      apps.readNamespacedDeployment(name, ns).execute();
      return true;
    } catch (ApiException e) {
      return e.getCode() != 404;
    }
  }

  private static long operatorReconciles() {
    return operator.bean(io.steward.operator.runtime.controller.ControllerMetrics.class).reconciles();
  }

  private static boolean idleFor(LocalCluster cluster, String name, Duration quiet) {
    Instant since = Instant.now().minus(quiet);
    return cluster.auditLog().writesBy(operator.userAgent(), since).stream()
        .noneMatch(e -> ns.equals(e.namespace()) && name.equals(e.name()) && !"events".equals(e.resource()));
  }
}
