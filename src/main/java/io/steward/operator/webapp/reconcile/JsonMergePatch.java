package io.steward.operator.webapp.reconcile;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.util.Map;

/** Builds an RFC 7386 JSON merge patch that turns one document into another. */
public final class JsonMergePatch {
  private JsonMergePatch() {}

  /** The smallest merge patch taking {@code source} to {@code target}: removed fields become null. */
  public static JsonElement diff(JsonElement source, JsonElement target) {
    if (source == null || !source.isJsonObject() || target == null || !target.isJsonObject()) {
      return target == null ? JsonNull.INSTANCE : target.deepCopy();
    }
    JsonObject from = source.getAsJsonObject();
    JsonObject to = target.getAsJsonObject();
    JsonObject patch = new JsonObject();
    for (Map.Entry<String, JsonElement> field : to.entrySet()) {
      JsonElement before = from.get(field.getKey());
      if (before == null || !before.equals(field.getValue())) {
        patch.add(field.getKey(), diff(before, field.getValue()));
      }
    }
    for (String removed : from.keySet()) {
      if (!to.has(removed)) {
        patch.add(removed, JsonNull.INSTANCE);
      }
    }
    return patch;
  }
}
