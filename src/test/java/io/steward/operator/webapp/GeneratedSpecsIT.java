package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.CreateOptions;
import io.steward.operator.support.Crds;
import io.steward.operator.support.WebAppSpecGenerator;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Property-style: a few hundred generated valid specs never make the desired-state builders throw,
 * and the API server accepts what they build (server-side dry run) — the WebApp itself, its
 * Deployment and its Service.
 */
@LocalClusterTest
class GeneratedSpecsIT {
  private static final long SEED = Long.getLong("steward.generated.seed", 20261202L);
  private static final int COUNT = Integer.getInteger("steward.generated.count", 300);

  @Test
  void everyValidSpecBuildsObjectsTheApiServerAccepts(LocalCluster cluster, TestNamespace ns) {
    ApiClient client = cluster.adminClient();
    Crds.installWebAppCrd(client);
    WebApps webApps = new WebApps(client, ns.name());
    var deployments = new GenericKubernetesApi<>(V1Deployment.class, V1DeploymentList.class, "apps", "v1",
        "deployments", client);
    var services = new GenericKubernetesApi<>(V1Service.class, V1ServiceList.class, "", "v1", "services", client);
    CreateOptions dryRun = new CreateOptions();
    dryRun.setDryRun("All");
    WebAppSpecGenerator generator = new WebAppSpecGenerator(SEED);
    List<String> failures = new ArrayList<>();

    for (int i = 0; i < COUNT; i++) {
      String name = generator.name();
      WebAppSpec spec = generator.spec();
      String where = "case " + i + " (seed " + SEED + ") " + name + " " + spec;
      WebApp webApp = new WebApp().metadata(new V1ObjectMeta().name(name).namespace(ns.name()).uid("uid-" + i)
          .generation(1L)).spec(spec);
      KubernetesApiResponse<WebApp> accepted = webApps.api().create(webApp, dryRun);
      if (!accepted.isSuccess()) {
        failures.add(where + ": WebApp refused: " + accepted.getStatus().getMessage());
        continue;
      }
      V1Deployment deployment = new DeploymentResource().desired(webApp);
      V1Service service = new ServiceResource().desired(webApp);
      KubernetesApiResponse<V1Deployment> d = deployments.create(deployment, dryRun);
      if (!d.isSuccess()) {
        failures.add(where + ": Deployment refused: " + d.getStatus().getMessage());
      }
      if (service != null) {
        KubernetesApiResponse<V1Service> s = services.create(service, dryRun);
        if (!s.isSuccess()) {
          failures.add(where + ": Service refused: " + s.getStatus().getMessage());
        }
      }
    }
    assertThat(failures).as("generated specs the server refused").isEmpty();
  }
}
