package io.steward.operator.webapp;

import com.google.gson.JsonObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.steward.operator.webapp.api.WebApp;
import java.util.List;

/**
 * One kind of object a WebApp owns (the Java Operator SDK's "dependent resource"): how to build it
 * from the spec, and which of its fields Steward manages.
 */
public interface OwnedResource<T extends KubernetesObject> {

  /** Kind, for messages and events. */
  String kind();

  Class<T> type();

  /** The object the spec asks for, with labels and owner reference; null when it should not exist. */
  T desired(WebApp webApp);

  /**
   * The fields of {@code desired} that Steward manages, as a JSON tree for {@link ManagedFields}:
   * labels and spec only; what the spec leaves out is not named.
   */
  JsonObject managedTree(JsonObject desiredJson);

  ManagedFields managedFields();

  /** The controller reference that marks an object as this WebApp's. */
  static V1OwnerReference controllerReference(WebApp webApp) {
    return new V1OwnerReference().apiVersion(WebApp.API_VERSION).kind(WebApp.KIND)
        .name(webApp.getMetadata().getName()).uid(webApp.getMetadata().getUid())
        .controller(true).blockOwnerDeletion(true);
  }

  /** True when {@code object}'s controller is exactly this WebApp (same uid, not a namesake). */
  static boolean isOwnedBy(KubernetesObject object, WebApp webApp) {
    List<V1OwnerReference> references = object.getMetadata().getOwnerReferences();
    return references != null && references.stream().anyMatch(r -> Boolean.TRUE.equals(r.getController())
        && webApp.getMetadata().getUid().equals(r.getUid()));
  }

  /**
   * Keeps labels and spec, what Steward sets, without server-managed metadata and without the empty
   * collections client-java's models start with.
   */
  static JsonObject labelsAndSpec(JsonObject desiredJson) {
    JsonObject tree = new JsonObject();
    JsonObject metadata = new JsonObject();
    JsonObject source = desiredJson.getAsJsonObject("metadata");
    if (source != null && source.has("labels")) {
      metadata.add("labels", source.get("labels").deepCopy());
    }
    tree.add("metadata", metadata);
    tree.add("spec", desiredJson.get("spec").deepCopy());
    return ManagedFields.withoutEmpties(tree);
  }
}
