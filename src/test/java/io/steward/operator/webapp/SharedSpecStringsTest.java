package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.reconcile.WebAppController;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharedSpecStringsTest {
  /** Decodes into new instances of every string, as an informer does. */
  private static final Gson GSON = new JSON().getGson();

  private final WebApp webApp = DesiredStateTest.webApp(DesiredStateTest.spec().withEnv(List.of(
      new WebAppSpec.EnvVar("PLAIN", "x".repeat(200)),
      WebAppSpec.EnvVar.fromSecret("PASSWORD", "db", "password", null),
      WebAppSpec.EnvVar.fromConfigMap("MODE", "settings", "mode", true))));
  private final SharedSpecStrings sharing = new SharedSpecStrings(
      (namespace, name) -> namespace.equals("team") && name.equals("shop") ? webApp : null, WebAppController.WEBAPPS);

  @Test
  void aCachedDeploymentUsesItsWebAppsInstancesOfTheStringsItRepeats() {
    V1Deployment live = asDecoded(new DeploymentResource().desired(webApp));
    String before = GSON.toJson(live);
    WebAppSpec spec = webApp.getSpec();
    assertThat(container(live).getImage()).isEqualTo(spec.image()).isNotSameAs(spec.image());

    sharing.apply(live);

    V1Container container = container(live);
    assertThat(container.getImage()).isSameAs(spec.image());
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isSameAs(spec.readinessPath());
    assertThat(container.getEnv().get(0).getName()).isSameAs(spec.env().get(0).name());
    assertThat(container.getEnv().get(0).getValue()).isSameAs(spec.env().get(0).value());
    assertThat(container.getEnv().get(1).getValueFrom().getSecretKeyRef().getName())
        .isSameAs(spec.env().get(1).valueFrom().secretKeyRef().name());
    assertThat(container.getEnv().get(1).getValueFrom().getSecretKeyRef().getKey())
        .isSameAs(spec.env().get(1).valueFrom().secretKeyRef().key());
    assertThat(container.getEnv().get(2).getValueFrom().getConfigMapKeyRef().getKey())
        .isSameAs(spec.env().get(2).valueFrom().configMapKeyRef().key());
    assertThat(GSON.toJson(live)).as("the Deployment reads as the API server sent it").isEqualTo(before);
  }

  @Test
  void whatDiffersFromTheSpecStaysAsTheApiServerSentIt() {
    V1Deployment live = asDecoded(new DeploymentResource().desired(webApp));
    container(live).setImage("other:2");
    container(live).getEnv().get(0).setValue("changed by someone else");

    sharing.apply(live);

    assertThat(container(live).getImage()).isEqualTo("other:2");
    assertThat(container(live).getEnv().get(0).getValue()).isEqualTo("changed by someone else");
    assertThat(container(live).getEnv().get(0).getName()).isSameAs(webApp.getSpec().env().get(0).name());
  }

  @Test
  void aDeploymentWhoseWebAppIsNotCachedIsLeftAlone() {
    V1Deployment live = asDecoded(new DeploymentResource().desired(webApp));
    live.getMetadata().getOwnerReferences().get(0).setName("gone");

    sharing.apply(live);

    assertThat(container(live).getImage()).isNotSameAs(webApp.getSpec().image());
  }

  private static V1Deployment asDecoded(V1Deployment deployment) {
    return GSON.fromJson(GSON.toJson(deployment), V1Deployment.class);
  }

  private static V1Container container(V1Deployment deployment) {
    return deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
  }
}
