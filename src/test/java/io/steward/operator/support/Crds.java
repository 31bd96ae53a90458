package io.steward.operator.support;

import static org.awaitility.Awaitility.await;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Installs the WebApp CRD from config/crd (the very file users install) and waits until it is served. */
public final class Crds {
  public static final Path WEBAPP_CRD = Path.of("config", "crd", "bases", "steward.io_webapps.yaml");

  private Crds() {}

  /**
   * The CRD as raw JSON. Not through client-java's typed models: their YAML mapper does not know the
   * x-kubernetes-* names, and schema fields typed Object turn integers into doubles on the way.
   */
  public static JsonObject load() {
    try (Reader reader = Files.newBufferedReader(WEBAPP_CRD)) {
      return new Gson().toJsonTree(new org.yaml.snakeyaml.Yaml().load(reader)).getAsJsonObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void installWebAppCrd(ApiClient client) {
    install(client, load());
  }

  /** Installs (or updates to) this version of the WebApp CRD, for tests of a CRD other than the file's. */
  public static synchronized void install(ApiClient client, JsonObject definition) {
    DynamicKubernetesApi crds = new DynamicKubernetesApi("apiextensions.k8s.io", "v1",
        "customresourcedefinitions", client);
    DynamicKubernetesObject crd = new DynamicKubernetesObject(definition);
    String name = crd.getMetadata().getName();
    KubernetesApiResponse<DynamicKubernetesObject> existing = crds.get(name);
    KubernetesApiResponse<DynamicKubernetesObject> response;
    if (existing.isSuccess()) {
      crd.getRaw().getAsJsonObject("metadata").addProperty("resourceVersion",
          existing.getObject().getMetadata().getResourceVersion());
      response = crds.update(crd);
    } else {
      response = crds.create(crd);
    }
    if (!response.isSuccess()) {
      throw new IllegalStateException("installing the WebApp CRD failed: HTTP " + response.getHttpStatusCode()
          + " " + response.getStatus().getMessage());
    }
    ApiextensionsV1Api api = new ApiextensionsV1Api(client);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
        api.readCustomResourceDefinition(name).execute().getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus())));
    // Established comes a moment before the storage serves lists (429 "storage is (re)initializing").
    DynamicKubernetesApi webApps = new DynamicKubernetesApi("steward.io", "v1alpha1", "webapps", client);
    await().atMost(Duration.ofSeconds(30)).until(() -> webApps.list().isSuccess());
  }
}
