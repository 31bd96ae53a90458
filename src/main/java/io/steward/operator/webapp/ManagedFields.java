package io.steward.operator.webapp;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.Map;
import java.util.Set;

/**
 * Drift detection and correction limited to the fields Steward manages, on JSON trees.
 *
 * <p>A desired tree names only what Steward sets. It matches a live object when every field it
 * names has that value there; fields the API server defaulted or other controllers added are not
 * looked at, so a converged object compares equal and costs no request. {@link #overlay} writes the
 * desired fields onto a copy of the live object, keeping everything else. In a desired tree:
 *
 * <ul>
 *   <li>{@code null}, {@code []} and {@code {}} mean "must be absent" (the server drops empties);
 *   <li>an object at one of the {@code exactPaths} is owned whole (a map such as resource limits or
 *       a Service selector): extra keys in the live object are drift;
 *   <li>an array at one of the {@code keyedLists} is matched element by element on a key (like a
 *       strategic merge patch), so other elements, such as injected sidecar containers, stay;
 *   <li>any other array is owned whole: same length, each element matched as above.
 * </ul>
 *
 * Paths are dot-separated field names, with {@code []} for "any element", e.g.
 * {@code spec.template.spec.containers[].resources.limits}.
 */
public final class ManagedFields {
  private final Set<String> exactPaths;
  private final Map<String, String> keyedLists;

  public ManagedFields(Set<String> exactPaths, Map<String, String> keyedLists) {
    this.exactPaths = Set.copyOf(exactPaths);
    this.keyedLists = Map.copyOf(keyedLists);
  }

  /** True when every field named in {@code desired} has its desired value in {@code live}. */
  public boolean matches(JsonElement desired, JsonElement live) {
    return matches("", desired, live);
  }

  /** A copy of {@code live} with the desired fields written into it. */
  public JsonElement overlay(JsonElement live, JsonElement desired) {
    JsonElement result = overlay("", live, desired);
    return result == null ? new JsonObject() : result;
  }

  private boolean matches(String path, JsonElement desired, JsonElement live) {
    if (isAbsent(live)) {
      return meansAbsent(desired);
    }
    if (desired == null || desired.isJsonNull()) {
      return meansAbsent(live);
    }
    if (desired.isJsonObject()) {
      if (!live.isJsonObject()) {
        return false;
      }
      JsonObject d = desired.getAsJsonObject();
      JsonObject l = live.getAsJsonObject();
      if (exactPaths.contains(path) && !l.keySet().stream().allMatch(k -> d.has(k) || meansAbsent(l.get(k)))) {
        return false;
      }
      return d.entrySet().stream().allMatch(e -> matches(child(path, e.getKey()), e.getValue(), l.get(e.getKey())));
    }
    if (desired.isJsonArray()) {
      if (!live.isJsonArray()) {
        return false;
      }
      JsonArray d = desired.getAsJsonArray();
      JsonArray l = live.getAsJsonArray();
      String key = keyedLists.get(path);
      String elementPath = path + "[]";
      if (key != null) {
        for (JsonElement wanted : d) {
          JsonElement found = findByKey(l, key, wanted);
          if (found == null || !matches(elementPath, wanted, found)) {
            return false;
          }
        }
        return true;
      }
      if (d.size() != l.size()) {
        return false;
      }
      for (int i = 0; i < d.size(); i++) {
        if (!matches(elementPath, d.get(i), l.get(i))) {
          return false;
        }
      }
      return true;
    }
    return live.isJsonPrimitive() && samePrimitive(desired.getAsJsonPrimitive(), live.getAsJsonPrimitive());
  }

  /** Returns the merged element, or null when the field should be removed. */
  private JsonElement overlay(String path, JsonElement live, JsonElement desired) {
    if (desired == null || desired.isJsonNull()) {
      return null;
    }
    if (desired.isJsonObject()) {
      if (isAbsent(live) || !live.isJsonObject() || exactPaths.contains(path)) {
        return withoutNulls(desired);
      }
      JsonObject result = live.getAsJsonObject().deepCopy();
      for (Map.Entry<String, JsonElement> e : desired.getAsJsonObject().entrySet()) {
        JsonElement merged = overlay(child(path, e.getKey()), result.get(e.getKey()), e.getValue());
        if (merged == null) {
          result.remove(e.getKey());
        } else {
          result.add(e.getKey(), merged);
        }
      }
      return result;
    }
    if (desired.isJsonArray()) {
      JsonArray d = desired.getAsJsonArray();
      JsonArray l = isAbsent(live) || !live.isJsonArray() ? new JsonArray() : live.getAsJsonArray();
      String key = keyedLists.get(path);
      String elementPath = path + "[]";
      JsonArray result = new JsonArray();
      if (key != null) {
        l.forEach(element -> result.add(element.deepCopy()));
        for (JsonElement wanted : d) {
          int index = indexByKey(result, key, wanted);
          if (index < 0) {
            result.add(withoutNulls(wanted));
          } else {
            result.set(index, overlay(elementPath, result.get(index), wanted));
          }
        }
        return result;
      }
      for (int i = 0; i < d.size(); i++) {
        JsonElement merged = overlay(elementPath, i < l.size() ? l.get(i) : null, d.get(i));
        result.add(merged == null ? JsonNull.INSTANCE : merged);
      }
      return result;
    }
    return desired.deepCopy();
  }

  /**
   * Drops empty arrays and objects. client-java's models start their lists as empty ones, which in a
   * desired tree would wrongly mean "must be absent"; owners state absence with explicit nulls.
   */
  public static JsonObject withoutEmpties(JsonObject tree) {
    JsonObject result = new JsonObject();
    for (Map.Entry<String, JsonElement> e : tree.entrySet()) {
      JsonElement value = e.getValue();
      if (value.isJsonObject()) {
        JsonObject pruned = withoutEmpties(value.getAsJsonObject());
        if (!pruned.isEmpty()) {
          result.add(e.getKey(), pruned);
        }
      } else if (value.isJsonArray()) {
        JsonArray pruned = new JsonArray();
        value.getAsJsonArray().forEach(v -> pruned.add(v.isJsonObject() ? withoutEmpties(v.getAsJsonObject()) : v));
        if (!pruned.isEmpty()) {
          result.add(e.getKey(), pruned);
        }
      } else if (!value.isJsonNull()) {
        result.add(e.getKey(), value);
      }
    }
    return result;
  }

  private static String child(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  private static boolean isAbsent(JsonElement element) {
    return element == null || element.isJsonNull();
  }

  /** Null, an empty array, or an object all of whose fields mean absent. */
  private static boolean meansAbsent(JsonElement element) {
    if (isAbsent(element)) {
      return true;
    }
    if (element.isJsonArray()) {
      return element.getAsJsonArray().isEmpty();
    }
    if (element.isJsonObject()) {
      return element.getAsJsonObject().entrySet().stream().allMatch(e -> meansAbsent(e.getValue()));
    }
    return false;
  }

  private static boolean samePrimitive(JsonPrimitive a, JsonPrimitive b) {
    if (a.isNumber() && b.isNumber()) {
      return a.getAsBigDecimal().compareTo(b.getAsBigDecimal()) == 0;
    }
    return a.equals(b);
  }

  private static JsonElement findByKey(JsonArray array, String key, JsonElement wanted) {
    int index = indexByKey(array, key, wanted);
    return index < 0 ? null : array.get(index);
  }

  private static int indexByKey(JsonArray array, String key, JsonElement wanted) {
    JsonElement wantedKey = wanted.isJsonObject() ? wanted.getAsJsonObject().get(key) : null;
    for (int i = 0; i < array.size(); i++) {
      JsonElement element = array.get(i);
      if (wantedKey != null && element.isJsonObject() && wantedKey.equals(element.getAsJsonObject().get(key))) {
        return i;
      }
    }
    return -1;
  }

  private static JsonElement withoutNulls(JsonElement element) {
    if (element.isJsonObject()) {
      JsonObject result = new JsonObject();
      element.getAsJsonObject().entrySet().stream().filter(e -> !isAbsent(e.getValue()))
          .forEach(e -> result.add(e.getKey(), withoutNulls(e.getValue())));
      return result;
    }
    if (element.isJsonArray()) {
      JsonArray result = new JsonArray();
      element.getAsJsonArray().forEach(e -> result.add(isAbsent(e) ? JsonNull.INSTANCE : withoutNulls(e)));
      return result;
    }
    return element.deepCopy();
  }
}
