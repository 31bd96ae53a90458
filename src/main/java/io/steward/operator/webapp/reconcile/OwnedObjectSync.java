package io.steward.operator.webapp.reconcile;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Preconditions;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.CreateOptions;
import io.kubernetes.client.util.generic.options.DeleteOptions;
import io.kubernetes.client.util.generic.options.PatchOptions;
import io.steward.operator.runtime.cache.OwnManagedFields;
import io.steward.operator.runtime.cache.ReadYourWritesCache;
import io.steward.operator.webapp.ManagedFields;
import io.steward.operator.webapp.OwnedResource;
import io.steward.operator.webapp.Problem;
import io.steward.operator.webapp.api.WebApp;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings one owned object in line with its WebApp: reads it from the informer cache, creates it when
 * missing, patches Steward's own fields (with the resourceVersion, so a concurrent writer wins and we
 * retry) only when one of them differs or one Steward set is no longer wanted, deletes the object
 * when the spec no longer asks for it, and never touches an object of the same name that the WebApp
 * does not own. Fields others set (an admission policy, another client) are theirs and stay; see
 * {@link ManagedFields}.
 */
public final class OwnedObjectSync<T extends KubernetesObject, L extends KubernetesListObject> {
  private static final Logger log = LoggerFactory.getLogger(OwnedObjectSync.class);
  /** The field manager of Steward's writes, as the API server records it in managedFields. */
  public static final String FIELD_MANAGER = "steward";

  public enum Action { NONE, CREATED, UPDATED, DELETED }

  /** What a sync did, the WebApp's object afterwards (null when there is none), and any problem. */
  public record Outcome<T>(Action action, T object, Problem problem) {}

  private final OwnedResource<T> resource;
  private final GenericKubernetesApi<T, L> api;
  private final ReadYourWritesCache<T> cache;
  private final Gson gson;

  public OwnedObjectSync(OwnedResource<T> resource, GenericKubernetesApi<T, L> api, ReadYourWritesCache<T> cache,
      Gson gson) {
    this.resource = resource;
    this.api = api;
    this.cache = cache;
    this.gson = gson;
  }

  public OwnedResource<T> resource() {
    return resource;
  }

  /** The WebApp's own object as cached, or null; a namesake it does not own counts as absent. */
  public T observe(WebApp webApp) {
    T current = cached(webApp);
    return current != null && OwnedResource.isOwnedBy(current, webApp) ? current : null;
  }

  public Outcome<T> sync(WebApp webApp) {
    T desired = resource.desired(webApp);
    T current = cached(webApp);
    String name = webApp.getMetadata().getName();
    if (current != null && !OwnedResource.isOwnedBy(current, webApp)) {
      return new Outcome<>(Action.NONE, null, Problem.conflict(resource.kind(), name));
    }
    if (desired == null) {
      return current == null ? new Outcome<>(Action.NONE, null, null) : delete(current);
    }
    if (current == null) {
      return create(webApp, desired);
    }
    return update(webApp, desired, current);
  }

  /** Patches Steward's fields of {@code current} that differ from {@code desired}, if any. */
  private Outcome<T> update(WebApp webApp, T desired, T current) {
    String name = webApp.getMetadata().getName();
    JsonObject desiredTree = resource.managedTree(gson.toJsonTree(desired).getAsJsonObject());
    JsonObject currentTree = gson.toJsonTree(current).getAsJsonObject();
    JsonObject patch = resource.managedFields().patch(desiredTree, currentTree, ownedFields(current, gson));
    if (patch == null) {
      return new Outcome<>(Action.NONE, current, null);
    }
    // Names only: the patch holds env values and other user data, which stay out of logs at any level.
    log.debug("{} {}/{} differs from the spec in Steward's fields; patching it", resource.kind(),
        webApp.getMetadata().getNamespace(), name);
    // A strategic merge patch of Steward's fields only: the server merges it into the object it has,
    // so fields Steward does not know (or that its models drop) stay. The resourceVersion makes it
    // conditional: if the object changed since we read it, the server refuses it (409) and we retry.
    patch.add("metadata", withResourceVersion(patch.getAsJsonObject("metadata"), current));
    KubernetesApiResponse<T> response = cache.write(current, current, () -> api.patch(
        current.getMetadata().getNamespace(), name, V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH,
        new V1Patch(patch.toString()), new PatchOptions().fieldManager(FIELD_MANAGER)));
    if (response.isSuccess()) {
      return new Outcome<>(Action.UPDATED, response.getObject(), null);
    }
    return failure("update", response, current);
  }

  /**
   * What Steward set before on this object: the union of the fields its entries in
   * {@code metadata.managedFields} own. Steward's writes name their field manager; versions before
   * that wrote without one, and the API server named them after the User-Agent {@code steward/...},
   * which is the same manager. Fields an admission policy adds to Steward's request are attributed to
   * no one, so they never count as Steward's.
   */
  static JsonObject ownedFields(KubernetesObject live, Gson gson) {
    List<V1ManagedFieldsEntry> entries = live.getMetadata().getManagedFields();
    List<JsonObject> sets = new ArrayList<>();
    if (entries != null) {
      for (V1ManagedFieldsEntry entry : entries) {
        boolean mainResource = entry.getSubresource() == null || entry.getSubresource().isEmpty();
        if (mainResource && FIELD_MANAGER.equals(entry.getManager()) && entry.getFieldsV1() != null) {
          JsonElement fields = OwnManagedFields.fieldsV1(entry, gson);
          if (fields.isJsonObject()) {
            sets.add(fields.getAsJsonObject());
          }
        }
      }
    }
    return ManagedFields.union(sets);
  }

  private static JsonObject withResourceVersion(JsonObject metadata, KubernetesObject current) {
    JsonObject result = metadata == null ? new JsonObject() : metadata;
    result.addProperty("resourceVersion", current.getMetadata().getResourceVersion());
    return result;
  }

  private Outcome<T> create(WebApp webApp, T desired) {
    KubernetesApiResponse<T> response =
        cache.write(desired, null, () -> api.create(desired, new CreateOptions().fieldManager(FIELD_MANAGER)));
    if (response.isSuccess()) {
      return new Outcome<>(Action.CREATED, response.getObject(), null);
    }
    if (response.getHttpStatusCode() == 409) {
      // The object exists, and the cache does not show it: it has not caught up yet, or the object
      // is outside the informer's selector (a namesake without our labels, or ours with one of them
      // changed by someone else). One direct read tells which.
      KubernetesApiResponse<T> existing = api.get(webApp.getMetadata().getNamespace(), webApp.getMetadata().getName());
      if (!existing.isSuccess()) {
        throw new StaleCacheException(resource.kind() + " " + webApp.getMetadata().getName()
            + " exists but could not be read (HTTP " + existing.getHttpStatusCode() + ")");
      }
      if (!OwnedResource.isOwnedBy(existing.getObject(), webApp)) {
        return new Outcome<>(Action.NONE, null, Problem.conflict(resource.kind(), webApp.getMetadata().getName()));
      }
      // Ours: patched from what the API server has, which also puts back a label of ours that was
      // changed. Waiting for the cache would wait forever for an object that left its selector.
      return update(webApp, desired, existing.getObject());
    }
    return failure("create", response, null);
  }

  private Outcome<T> delete(T current) {
    // Preconditions: delete exactly the object we judged, not a newer one that replaced it.
    DeleteOptions options = new DeleteOptions();
    options.setPreconditions(new V1Preconditions()
        .uid(current.getMetadata().getUid()).resourceVersion(current.getMetadata().getResourceVersion()));
    KubernetesApiResponse<T> response = cache.writing(current.getMetadata().getNamespace(),
        current.getMetadata().getName(), () -> {
          KubernetesApiResponse<T> deleted =
              api.delete(current.getMetadata().getNamespace(), current.getMetadata().getName(), options);
          if (gone(deleted)) {
            cache.written(current, null);
          }
          return deleted;
        });
    if (gone(response)) {
      return new Outcome<>(Action.DELETED, null, null);
    }
    return failure("delete", response, current);
  }

  /** A delete that found the object already gone did what it was for. */
  private static boolean gone(KubernetesApiResponse<?> response) {
    return response.isSuccess() || response.getHttpStatusCode() == 404;
  }

  private Outcome<T> failure(String verb, KubernetesApiResponse<T> response, T current) {
    int code = response.getHttpStatusCode();
    V1Status status = response.getStatus();
    String message = status == null || status.getMessage() == null ? "(no message)" : status.getMessage();
    String what = verb + " " + resource.kind();
    if (code == 409 || code == 404) {
      throw new StaleCacheException(what + ": " + message);
    }
    if (code == 422 || code == 400) {
      return new Outcome<>(Action.NONE, current, Problem.rejected(resource.kind(), message));
    }
    throw new ApiFailureException(what, code, message);
  }

  private T cached(WebApp webApp) {
    return cache.get(webApp.getMetadata().getNamespace(), webApp.getMetadata().getName());
  }
}
