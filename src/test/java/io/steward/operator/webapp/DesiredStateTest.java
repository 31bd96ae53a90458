package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Service;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DesiredStateTest {
  private static final Gson GSON = new JSON().getGson();

  static WebApp webApp(WebAppSpec spec) {
    return new WebApp().metadata(new V1ObjectMeta().name("shop").namespace("team").uid("u-1").generation(3L)).spec(spec);
  }

  static WebAppSpec spec() {
    return new WebAppSpec("nginx:1.27", 2, 8080, WebAppSpec.ServiceType.NodePort,
        List.of(new WebAppSpec.EnvVar("A", "1")),
        new WebAppSpec.ResourceSettings(Map.of("cpu", new Quantity("100m")), Map.of("memory", new Quantity("128Mi"))),
        "/healthz", false);
  }

  @Test
  void deploymentCarriesTheSpecLabelsAndControllerReference() {
    V1Deployment deployment = new DeploymentResource().desired(webApp(spec()));

    assertThat(deployment.getMetadata().getName()).isEqualTo("shop");
    assertThat(deployment.getMetadata().getNamespace()).isEqualTo("team");
    assertThat(deployment.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "steward")
        .containsEntry("app.kubernetes.io/instance", "shop").containsEntry("app.kubernetes.io/name", "webapp");
    assertThat(deployment.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
      assertThat(ref.getKind()).isEqualTo("WebApp");
      assertThat(ref.getApiVersion()).isEqualTo("steward.io/v1alpha1");
      assertThat(ref.getUid()).isEqualTo("u-1");
      assertThat(ref.getController()).isTrue();
    });
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(deployment.getSpec().getSelector().getMatchLabels())
        .isEqualTo(Map.of("app.kubernetes.io/name", "webapp", "app.kubernetes.io/instance", "shop"));
    V1Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getName()).isEqualTo("app");
    assertThat(container.getImage()).isEqualTo("nginx:1.27");
    assertThat(container.getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getContainerPort()).isEqualTo(8080);
      assertThat(p.getName()).isEqualTo("http");
    });
    assertThat(container.getEnv()).singleElement().satisfies(e -> assertThat(e.getName()).isEqualTo("A"));
    assertThat(container.getResources().getRequests()).containsEntry("cpu", new Quantity("100m"));
    assertThat(container.getResources().getLimits()).containsEntry("memory", new Quantity("128Mi"));
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrValue()).isEqualTo("http");
  }

  @Test
  void podTemplateMeetsTheRestrictedPodSecurityStandardByDefault() {
    V1PodSpec pod = new DeploymentResource().desired(webApp(spec())).getSpec().getTemplate().getSpec();

    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isNull();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    V1Container container = pod.getContainers().get(0);
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(container.getSecurityContext().getPrivileged()).isNull();
  }

  @Test
  void theSpecMayAskForRootAUserIdAndTheTokenButNothingElse() {
    V1PodSpec pod = new DeploymentResource().desired(webApp(spec().withRunAsNonRoot(false).withRunAsUser(101L)
        .withAutomountServiceAccountToken(true))).getSpec().getTemplate().getSpec();

    assertThat(pod.getAutomountServiceAccountToken()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(101L);
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(pod.getContainers().get(0).getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
  }

  @Test
  void envReferencesAreCopiedNotResolvedAndEmptyValuesAreUnset() {
    V1Container container = new DeploymentResource().desired(webApp(spec().withEnv(List.of(
        new WebAppSpec.EnvVar("PLAIN", "x"),
        new WebAppSpec.EnvVar("EMPTY", ""),
        WebAppSpec.EnvVar.fromSecret("PASSWORD", "db", "password", null),
        WebAppSpec.EnvVar.fromConfigMap("MODE", "settings", "mode", true)))))
        .getSpec().getTemplate().getSpec().getContainers().get(0);

    assertThat(container.getEnv()).extracting(V1EnvVar::getName).containsExactly("PLAIN", "EMPTY", "PASSWORD", "MODE");
    assertThat(container.getEnv().get(0).getValue()).isEqualTo("x");
    // Kubernetes drops an empty value, so the managed tree must not ask for one.
    assertThat(container.getEnv().get(1).getValue()).isNull();
    assertThat(container.getEnv().get(1).getValueFrom()).isNull();
    V1EnvVar password = container.getEnv().get(2);
    assertThat(password.getValue()).isNull();
    assertThat(password.getValueFrom().getConfigMapKeyRef()).isNull();
    assertThat(password.getValueFrom().getSecretKeyRef().getName()).isEqualTo("db");
    assertThat(password.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("password");
    assertThat(password.getValueFrom().getSecretKeyRef().getOptional()).isNull();
    V1EnvVar mode = container.getEnv().get(3);
    assertThat(mode.getValueFrom().getSecretKeyRef()).isNull();
    assertThat(mode.getValueFrom().getConfigMapKeyRef().getName()).isEqualTo("settings");
    assertThat(mode.getValueFrom().getConfigMapKeyRef().getKey()).isEqualTo("mode");
    assertThat(mode.getValueFrom().getConfigMapKeyRef().getOptional()).isTrue();
  }

  @Test
  void optionalFieldsLeftOutOfTheSpecAreNotNamedInTheManagedTree() {
    DeploymentResource resource = new DeploymentResource();
    V1Deployment deployment = resource.desired(webApp(new WebAppSpec("nginx", null, null, null, null, null, null, null)));
    var tree = resource.managedTree(GSON.toJsonTree(deployment).getAsJsonObject());
    var container = tree.getAsJsonObject("spec").getAsJsonObject("template").getAsJsonObject("spec")
        .getAsJsonArray("containers").get(0).getAsJsonObject();

    assertThat(deployment.getSpec().getReplicas()).as("default replicas").isEqualTo(1);
    // Not named means not Steward's: an admission policy may set them without Steward undoing it.
    assertThat(container.keySet()).containsExactlyInAnyOrder("name", "image", "securityContext");
    assertThat(tree.getAsJsonObject("metadata").has("ownerReferences")).isFalse();
  }

  @Test
  void whatAnAdmissionPolicyAddsIsNotDriftButWhatTheSpecDropsIsRemoved() {
    DeploymentResource resource = new DeploymentResource();
    // What the server holds after a policy added an env var, a memory request and a sidecar.
    V1Deployment live = GSON.fromJson(GSON.toJson(resource.desired(webApp(spec()))), V1Deployment.class);
    V1Container app = live.getSpec().getTemplate().getSpec().getContainers().get(0);
    app.addEnvItem(new V1EnvVar().name("INJECTED").value("yes"));
    app.getResources().putRequestsItem("memory", new Quantity("32Mi"));
    live.getSpec().getTemplate().getSpec().addContainersItem(new V1Container().name("proxy").image("envoy"));
    JsonObject liveTree = GSON.toJsonTree(live).getAsJsonObject();
    // Steward created it with env A, a cpu request, a memory limit, the port and the probe.
    JsonObject owned = JsonParser.parseString("""
        {"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{
          "f:env":{"k:{\\"name\\":\\"A\\"}":{".":{},"f:name":{},"f:value":{}}},
          "f:ports":{"k:{\\"containerPort\\":8080,\\"protocol\\":\\"TCP\\"}":{".":{}}},
          "f:readinessProbe":{".":{}},
          "f:resources":{"f:requests":{"f:cpu":{}},"f:limits":{"f:memory":{}}}}}}}}}
        """).getAsJsonObject();

    JsonObject same = resource.managedTree(GSON.toJsonTree(resource.desired(webApp(spec()))).getAsJsonObject());
    assertThat(resource.managedFields().patch(same, liveTree, owned)).as("patch for an unchanged spec").isNull();

    JsonObject dropped = resource.managedTree(GSON.toJsonTree(resource.desired(webApp(
        new WebAppSpec("nginx:1.27", 2, null, null, null, null, null, false)))).getAsJsonObject());
    assertThat(resource.managedFields().patch(dropped, liveTree, owned)).isEqualTo(JsonParser.parseString("""
        {"spec":{"template":{"spec":{"containers":[{"name":"app",
          "env":[{"name":"A","$patch":"delete"}],
          "ports":[{"containerPort":8080,"protocol":"TCP","$patch":"delete"}],
          "readinessProbe":null,
          "resources":{"requests":{"cpu":null},"limits":{"memory":null}}}]}}}}
        """));
  }

  @Test
  void serviceExistsOnlyWithAPortAndRoutesToTheNamedContainerPort() {
    ServiceResource resource = new ServiceResource();
    assertThat(resource.desired(webApp(spec().withPort(null)))).isNull();

    V1Service service = resource.desired(webApp(spec()));
    assertThat(service.getSpec().getType()).isEqualTo("NodePort");
    assertThat(service.getSpec().getSelector())
        .isEqualTo(Map.of("app.kubernetes.io/name", "webapp", "app.kubernetes.io/instance", "shop"));
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getPort()).isEqualTo(8080);
      assertThat(p.getTargetPort().getStrValue()).isEqualTo("http");
    });
    assertThat(ServiceResource.url(service)).isEqualTo("http://shop.team.svc:8080");
  }

  @Test
  void ownershipNeedsTheSameUidNotJustTheName() {
    V1Deployment ours = new DeploymentResource().desired(webApp(spec()));
    assertThat(OwnedResource.isOwnedBy(ours, webApp(spec()))).isTrue();
    WebApp namesake = webApp(spec());
    namesake.getMetadata().setUid("u-2");
    assertThat(OwnedResource.isOwnedBy(ours, namesake)).isFalse();
    assertThat(OwnedResource.isOwnedBy(new V1Deployment().metadata(new V1ObjectMeta()), namesake)).isFalse();
  }

  @Test
  void aDesiredDeploymentMatchesItselfAfterTheServerFilledDefaults() {
    DeploymentResource resource = new DeploymentResource();
    V1Deployment desired = resource.desired(webApp(spec()));
    var tree = resource.managedTree(GSON.toJsonTree(desired).getAsJsonObject());
    // What the API server returns: the same object plus defaults and status.
    V1Deployment live = GSON.fromJson(GSON.toJson(desired), V1Deployment.class);
    live.getSpec().progressDeadlineSeconds(600).revisionHistoryLimit(10);
    live.getSpec().getTemplate().getSpec().restartPolicy("Always").dnsPolicy("ClusterFirst");
    live.getSpec().getTemplate().getSpec().getContainers().get(0).imagePullPolicy("IfNotPresent")
        .terminationMessagePath("/dev/termination-log");
    live.getMetadata().resourceVersion("42").generation(1L).putAnnotationsItem("deployment.kubernetes.io/revision", "1");

    assertThat(resource.managedFields().matches(tree, GSON.toJsonTree(live))).isTrue();
    // Steward created it, so it owns what it sent and the defaults the server filled in on create;
    // those are never removed (the server would only fill them in again).
    JsonObject ownedWithDefaults = JsonParser.parseString("""
        {"f:spec":{"f:progressDeadlineSeconds":{},"f:template":{"f:spec":{"f:restartPolicy":{}}}}}
        """).getAsJsonObject();
    assertThat(resource.managedFields().patch(tree, GSON.toJsonTree(live).getAsJsonObject(), ownedWithDefaults)).isNull();
  }
}
