package io.steward.operator.runtime.cache;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/**
 * What the caches keep of {@code metadata.managedFields}: only the operator's own entries for the
 * object itself (not for a subresource such as status), which tell which fields it set before. Their
 * {@code fieldsV1} is kept as deflated JSON text: decoded it is a tree of maps, one per field, and
 * the text repeats the same few keys. The lenient Gson never writes managedFields, so this form is
 * never sent to the API server.
 */
public final class OwnManagedFields {
  private final String fieldManager;
  private final Gson gson;

  /** @param gson the client's Gson, which writes a decoded {@code fieldsV1} back to text */
  public OwnManagedFields(String fieldManager, Gson gson) {
    this.fieldManager = fieldManager;
    this.gson = gson;
  }

  /** Drops every other entry from {@code object}, in place, and deflates the one kept. */
  public KubernetesObject keepOnlyOwn(KubernetesObject object) {
    V1ObjectMeta metadata = object.getMetadata();
    if (metadata != null && metadata.getManagedFields() != null) {
      metadata.setManagedFields(metadata.getManagedFields().stream()
          .filter(entry -> fieldManager.equals(entry.getManager()))
          .filter(entry -> entry.getSubresource() == null || entry.getSubresource().isEmpty())
          .map(this::withFieldsDeflated)
          .toList());
    }
    return object;
  }

  private V1ManagedFieldsEntry withFieldsDeflated(V1ManagedFieldsEntry entry) {
    if (entry.getFieldsV1() != null && !(entry.getFieldsV1() instanceof DeflatedJson)) {
      entry.setFieldsV1(DeflatedJson.of(gson.toJson(entry.getFieldsV1())));
    }
    return entry;
  }

  /** An entry's {@code fieldsV1} as a JSON tree, whether cached deflated or decoded as a response has it. */
  public static JsonElement fieldsV1(V1ManagedFieldsEntry entry, Gson gson) {
    Object fields = entry.getFieldsV1();
    return fields instanceof DeflatedJson deflated ? JsonParser.parseString(deflated.text()) : gson.toJsonTree(fields);
  }
}
