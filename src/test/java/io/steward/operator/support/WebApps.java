package io.steward.operator.support;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppList;
import io.steward.operator.webapp.api.WebAppSpec;
import java.util.List;
import java.util.function.UnaryOperator;

/** Test-side access to WebApps, as a user would have it. */
public final class WebApps {
  private final GenericKubernetesApi<WebApp, WebAppList> api;
  private final String namespace;

  public WebApps(ApiClient client, String namespace) {
    this.api = new GenericKubernetesApi<>(WebApp.class, WebAppList.class, WebApp.GROUP, WebApp.VERSION,
        WebApp.PLURAL, client);
    this.namespace = namespace;
  }

  public static WebAppSpec spec(String image, int replicas, Integer port) {
    return new WebAppSpec(image, replicas, port, null, null, null, null, null);
  }

  public WebApp create(String name, WebAppSpec spec) throws ApiException {
    return api.create(new WebApp().metadata(new V1ObjectMeta().name(name).namespace(namespace)).spec(spec))
        .throwsApiException().getObject();
  }

  /** Creates without throwing, for tests of what the API server refuses. */
  public KubernetesApiResponse<WebApp> tryCreate(String name, WebAppSpec spec) {
    return api.create(new WebApp().metadata(new V1ObjectMeta().name(name).namespace(namespace)).spec(spec));
  }

  public WebApp get(String name) throws ApiException {
    return api.get(namespace, name).throwsApiException().getObject();
  }

  /** Read-modify-write of the spec, retried on conflict as any client should. */
  public WebApp updateSpec(String name, UnaryOperator<WebAppSpec> change) throws ApiException {
    for (int attempt = 0; ; attempt++) {
      WebApp current = get(name);
      current.spec(change.apply(current.getSpec()));
      KubernetesApiResponse<WebApp> response = api.update(current);
      if (response.isSuccess()) {
        return response.getObject();
      }
      if (response.getHttpStatusCode() != 409 || attempt > 10) {
        response.throwsApiException();
      }
    }
  }

  public void delete(String name) throws ApiException {
    api.delete(namespace, name).throwsApiException();
  }

  public List<WebApp> list() throws ApiException {
    return api.list(namespace).throwsApiException().getObject().getItems();
  }

  /** The condition of {@code type} in a WebApp document as the API server returned it; null when absent. */
  public static com.google.gson.JsonObject condition(com.google.gson.JsonObject document, String type) {
    com.google.gson.JsonObject status = document.getAsJsonObject("status");
    if (status == null || !status.has("conditions")) {
      return null;
    }
    for (var c : status.getAsJsonArray("conditions")) {
      if (type.equals(c.getAsJsonObject().get("type").getAsString())) {
        return c.getAsJsonObject();
      }
    }
    return null;
  }

  public GenericKubernetesApi<WebApp, WebAppList> api() {
    return api;
  }
}
