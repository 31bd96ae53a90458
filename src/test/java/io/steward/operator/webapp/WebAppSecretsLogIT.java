package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec.EnvVar;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Secrets stay out of Steward's logs. Env values that look like secrets drive every path that
 * handles a spec (create, update, drift correction, a write refused for a namesake) while the
 * operator jar runs with Steward's and client-java's loggers at DEBUG; here the log file is the object
 * under test, so it is read, and must contain none of them. Env references to Secrets and ConfigMaps
 * reach the Deployment as references, which the API server accepts, and the WebApp becomes Ready.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class WebAppSecretsLogIT {
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final String PREFIX = "s3cr3t-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  @Test
  void envValuesNeverReachTheLogAtDebug(LocalCluster cluster, TestNamespace namespace) throws Exception {
    String ns = namespace.name();
    ApiClient admin = cluster.adminClient();
    Crds.installWebAppCrd(admin);
    CoreV1Api core = new CoreV1Api(admin);
    AppsV1Api apps = new AppsV1Api(admin);
    WebApps webApps = new WebApps(admin, ns);
    core.createNamespacedSecret(ns, new V1Secret().metadata(new V1ObjectMeta().name("db"))
        .stringData(Map.of("password", PREFIX + "in-the-secret"))).execute();
    core.createNamespacedConfigMap(ns, new V1ConfigMap().metadata(new V1ObjectMeta().name("settings"))
        .data(Map.of("mode", "blue"))).execute();

    Path logFile;
    try (OperatorProcess operator = OperatorProcess.start(cluster, "secrets-" + ns, Map.of(
        "steward.namespaces", ns, "steward.leader-election.enabled", "false", "steward.resync-period", "2s",
        "logging.level.io.steward", "DEBUG", "logging.level.io.kubernetes", "DEBUG",
        "logging.level.io.kubernetes.client.informer.cache.ReflectorRunnable", "DEBUG"))) {
      // Create: a literal value and references to a Secret and a ConfigMap.
      webApps.create("vault", WebApps.spec("nginx:1.27", 1, 8080).withEnv(List.of(
          new EnvVar("TOKEN", PREFIX + "created"),
          EnvVar.fromSecret("DB_PASSWORD", "db", "password", null),
          EnvVar.fromConfigMap("MODE", "settings", "mode", true))));
      awaitStatus(webApps, "vault", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));
      List<V1EnvVar> env = container(apps, ns, "vault").getEnv();
      assertThat(env).extracting(V1EnvVar::getName).containsExactly("TOKEN", "DB_PASSWORD", "MODE");
      assertThat(env.get(1).getValue()).isNull();
      assertThat(env.get(1).getValueFrom().getSecretKeyRef().getName()).isEqualTo("db");
      assertThat(env.get(1).getValueFrom().getSecretKeyRef().getKey()).isEqualTo("password");
      assertThat(env.get(2).getValueFrom().getConfigMapKeyRef().getName()).isEqualTo("settings");
      assertThat(env.get(2).getValueFrom().getConfigMapKeyRef().getOptional()).isTrue();

      // Update.
      webApps.updateSpec("vault", s -> s.withEnv(replaceToken(s, PREFIX + "updated")));
      awaitToken(apps, ns, "vault", PREFIX + "updated");

      // Drift correction: someone else changes the value in the Deployment; Steward puts it back.
      PatchUtils.patch(V1Deployment.class, () -> apps.patchNamespacedDeployment("vault", ns, new V1Patch(
              "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\",\"env\":[{\"name\":\"TOKEN\",\"value\":\""
                  + PREFIX + "drifted\"}]}]}}}}")).buildCall(null),
          V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, admin);
      awaitToken(apps, ns, "vault", PREFIX + "updated");

      // A write Steward cannot make: a Deployment of the same name that is not the WebApp's.
      Map<String, String> labels = Map.of("app", "theirs");
      apps.createNamespacedDeployment(ns, new V1Deployment().metadata(new V1ObjectMeta().name("taken").labels(labels))
          .spec(new V1DeploymentSpec().replicas(1).selector(new V1LabelSelector().matchLabels(labels))
              .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                  .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("theirs:1")
                      .env(List.of(new V1EnvVar().name("THEIRS").value(PREFIX + "namesake"))))))))).execute();
      webApps.create("taken", WebApps.spec("nginx:1.27", 1, 8080).withEnv(List.of(new EnvVar("TOKEN", PREFIX + "refused"))));
      awaitStatus(webApps, "taken", w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Degraded));

      // Let a few resyncs pass over all of it at DEBUG.
      await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> true);
      assertThat(operator.isRunning()).isTrue();
      logFile = operator.log();
    }

    String log = Files.readString(logFile);
    // The log is at DEBUG, Steward's and client-java's, and has the drift line (or this test could not fail).
    assertThat(log).contains("DEBUG").contains("Deployment " + ns + "/vault ").contains("#Receiving resourceVersion");
    assertThat(log).as("the operator's log %s", logFile).doesNotContain(PREFIX);
    assertThat(core.listNamespacedEvent(ns).execute().getItems()).extracting(CoreV1Event::getMessage)
        .isNotEmpty().noneMatch(m -> m.contains(PREFIX));
  }

  @Test
  void anEnvVarHasExactlyOneOfValueAndValueFrom(LocalCluster cluster, TestNamespace namespace) {
    Crds.installWebAppCrd(cluster.adminClient());
    WebApps webApps = new WebApps(cluster.adminClient(), namespace.name());
    WebAppSpec.EnvVarSource secret = new WebAppSpec.EnvVarSource(new WebAppSpec.KeyReference("db", "password", null), null);
    assertRefused(webApps.tryCreate("both", WebApps.spec("nginx", 1, null).withEnv(List.of(new EnvVar("TOKEN", "x", secret)))),
        "spec.env[0]", "spec.env TOKEN must set exactly one of value and valueFrom");
    assertRefused(webApps.tryCreate("neither", WebApps.spec("nginx", 1, null).withEnv(List.of(new EnvVar("TOKEN", null, null)))),
        "spec.env[0]", "spec.env TOKEN must set exactly one of value and valueFrom");
    WebAppSpec.KeyReference key = new WebAppSpec.KeyReference("db", "password", null);
    assertRefused(webApps.tryCreate("two-sources", WebApps.spec("nginx", 1, null).withEnv(List.of(
            new EnvVar("TOKEN", null, new WebAppSpec.EnvVarSource(key, key))))),
        "spec.env[0].valueFrom", "must set exactly one of secretKeyRef and configMapKeyRef");
    assertRefused(webApps.tryCreate("bad-key", WebApps.spec("nginx", 1, null).withEnv(List.of(
            EnvVar.fromSecret("TOKEN", "Not_A_Name", "pass word", null)))),
        "spec.env[0].valueFrom.secretKeyRef.name", "spec.env[0].valueFrom.secretKeyRef.key");
    assertRefused(webApps.tryCreate("root-user", WebApps.spec("nginx", 1, null).withRunAsUser(0L)),
        "spec.runAsUser", "should be greater than or equal to 1");
  }

  private static void assertRefused(KubernetesApiResponse<WebApp> response, String... messageParts) {
    assertThat(response.isSuccess()).as("accepted").isFalse();
    assertThat(response.getHttpStatusCode()).isEqualTo(422);
    assertThat(response.getStatus().getMessage()).contains(messageParts);
  }

  private static List<EnvVar> replaceToken(WebAppSpec spec, String value) {
    return spec.envOrEmpty().stream().map(e -> e.name().equals("TOKEN") ? new EnvVar("TOKEN", value) : e).toList();
  }

  private static void awaitToken(AppsV1Api apps, String ns, String name, String value) {
    await().atMost(CONVERGE).ignoreExceptions().untilAsserted(() -> assertThat(container(apps, ns, name).getEnv())
        .filteredOn(e -> "TOKEN".equals(e.getName())).singleElement()
        .satisfies(e -> assertThat(e.getValue()).isEqualTo(value)));
  }

  private static V1Container container(AppsV1Api apps, String ns, String name) throws ApiException {
    return apps.readNamespacedDeployment(name, ns).execute().getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  private static WebApp awaitStatus(WebApps webApps, String name, Consumer<WebApp> check) {
    return await().atMost(CONVERGE).ignoreExceptions().until(() -> {
      WebApp webApp = webApps.get(name);
      check.accept(webApp);
      return webApp;
    }, w -> true);
  }
}
