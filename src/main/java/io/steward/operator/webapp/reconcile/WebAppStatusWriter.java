package io.steward.operator.webapp.reconcile;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;
import io.steward.operator.runtime.cache.ReadYourWritesCache;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus;

/**
 * Writes a WebApp's status through the status subresource, only when it changed, as one JSON merge
 * patch that carries the resourceVersion it was computed from (optimistic locking: a stale view
 * gets 409 and the request is retried on fresh data). The patched WebApp goes to the cache, so the
 * next pass compares against it and not against the informer's older copy.
 *
 * <p>A merge patch, not {@code GenericKubernetesApi.updateStatus}: client-java 25 sends that as a JSON
 * patch with content type application/json and real API servers answer 415 (client-java #3143).
 */
public final class WebAppStatusWriter {
  private final ApiClient client;
  private final CustomObjectsApi customObjects;
  private final Gson gson;
  private final Gson gsonWithNulls;
  private final ReadYourWritesCache<WebApp> cache;

  public WebAppStatusWriter(ApiClient client, ReadYourWritesCache<WebApp> cache) {
    this.client = client;
    this.cache = cache;
    this.customObjects = new CustomObjectsApi(client);
    this.gson = client.getJSON().getGson();
    this.gsonWithNulls = gson.newBuilder().serializeNulls().create();
  }

  /** Returns true when a patch was sent. */
  public boolean writeIfChanged(WebApp webApp, WebAppStatus status) {
    if (status.equals(webApp.getStatus())) {
      return false;
    }
    JsonObject patch = new JsonObject();
    JsonObject metadata = new JsonObject();
    metadata.addProperty("resourceVersion", webApp.getMetadata().getResourceVersion());
    patch.add("metadata", metadata);
    patch.add("status", JsonMergePatch.diff(gson.toJsonTree(webApp.getStatus()), gson.toJsonTree(status)));
    String body = gsonWithNulls.toJson(patch);
    String name = webApp.getMetadata().getName();
    try {
      cache.writing(webApp.getMetadata().getNamespace(), name, () -> {
        WebApp patched = PatchUtils.patch(WebApp.class, () -> customObjects.patchNamespacedCustomObjectStatus(
                WebApp.GROUP, WebApp.VERSION, webApp.getMetadata().getNamespace(), WebApp.PLURAL, name,
                new V1Patch(body)).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
        cache.written(webApp, patched);
        return patched;
      });
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 409 || e.getCode() == 404) {
        throw new StaleCacheException("status of WebApp " + name + " changed since it was read");
      }
      if (e.getCode() == 0 && e.getCause() != null) {
        throw new ApiFailureException("patch status of WebApp " + name, e.getCause());
      }
      throw new ApiFailureException("patch status of WebApp " + name, e.getCode(),
          e.getResponseBody() == null ? e.getMessage() : e.getResponseBody());
    }
  }
}
