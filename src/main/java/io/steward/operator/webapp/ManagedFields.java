package io.steward.operator.webapp;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Field ownership on JSON trees: Steward owns exactly the fields its desired tree names, and the
 * fields it set before that the spec has since dropped. Everything else on the object (fields the
 * API server defaulted, an admission policy or another client added) is someone else's.
 *
 * <p>{@link #patch} compares a desired tree with the live object and returns the strategic merge
 * patch that brings Steward's fields in line, or null when none differs; so the decision to write
 * and the write itself come from one comparison, and a converged object costs no request. Like the
 * API server's own merging:
 *
 * <ul>
 *   <li>objects and maps are compared key by key: a key the desired tree leaves out is not looked at;
 *   <li>an array at one of the {@code keyedLists} is compared entry by entry on the entry's key
 *       fields (containers and env vars by name, ports by number and protocol), so entries others
 *       added stay; the patch lists only the entries that differ;
 *   <li>any other array is a single value, replaced whole when it differs.
 * </ul>
 *
 * A field Steward set before (it is in {@code owned}, the {@code fieldsV1} of Steward's entries in
 * the object's {@code metadata.managedFields}) that the desired tree no longer names is removed, but
 * only at the {@code droppable} paths: the optional parts of the spec (an env var, a port, a resource
 * bound, the readiness probe). Elsewhere an owned field may be one the API server defaulted when
 * Steward created the object, and removing it would only have it defaulted again.
 *
 * A map at one of the {@code atomic} paths is one value, as the API server's schema says (a
 * Service's selector: an extra key would change which pods it selects); it is replaced whole.
 *
 * <p>Paths are dot-separated field names, with {@code []} for "any entry" of a list and {@code *} for
 * "any key" of a map, e.g. {@code spec.template.spec.containers[].resources.limits.*}.
 */
public final class ManagedFields {
  private static final String DELETE_DIRECTIVE = "$patch";

  private final Map<String, List<String>> keyedLists;
  private final Set<String> droppable;
  private final Set<String> atomic;

  public ManagedFields(Map<String, List<String>> keyedLists, Set<String> droppable) {
    this(keyedLists, droppable, Set.of());
  }

  /** @param atomic maps the API server treats as one value (a Service's selector): compared and replaced whole */
  public ManagedFields(Map<String, List<String>> keyedLists, Set<String> droppable, Set<String> atomic) {
    this.keyedLists = Map.copyOf(keyedLists);
    this.droppable = Set.copyOf(droppable);
    this.atomic = Set.copyOf(atomic);
  }

  /** True when every field named in {@code desired} has its desired value in {@code live}. */
  public boolean matches(JsonElement desired, JsonElement live) {
    return matches("", desired, live);
  }

  /**
   * The strategic merge patch that sets the desired fields and removes the droppable ones Steward
   * owns but no longer wants; null when there is nothing to change.
   *
   * @param owned the fields Steward set before, in the API server's {@code fieldsV1} format (may be empty)
   */
  public JsonObject patch(JsonObject desired, JsonObject live, JsonObject owned) {
    JsonElement patch = objectPatch("", desired, live.getAsJsonObject(), owned);
    return patch == null ? null : patch.getAsJsonObject();
  }

  // ---- comparison ------------------------------------------------------------------------------

  private boolean matches(String path, JsonElement desired, JsonElement live) {
    if (desired == null || desired.isJsonNull()) {
      return true;
    }
    if (live == null || live.isJsonNull()) {
      // The API server omits empty strings: an empty value and no value are the same.
      return desired.isJsonPrimitive() && desired.getAsJsonPrimitive().isString() && desired.getAsString().isEmpty();
    }
    if (desired.isJsonObject()) {
      if (!live.isJsonObject()) {
        return false;
      }
      JsonObject l = live.getAsJsonObject();
      if (atomic.contains(path) && !l.keySet().equals(desired.getAsJsonObject().keySet())) {
        return false;
      }
      return desired.getAsJsonObject().entrySet().stream()
          .allMatch(e -> matches(child(path, e.getKey()), e.getValue(), l.get(e.getKey())));
    }
    if (desired.isJsonArray()) {
      if (!live.isJsonArray()) {
        return false;
      }
      JsonArray d = desired.getAsJsonArray();
      JsonArray l = live.getAsJsonArray();
      List<String> keys = keyedLists.get(path);
      if (keys != null) {
        for (JsonElement wanted : d) {
          JsonElement found = findByKey(l, keys, wanted);
          if (found == null || !matches(path + "[]", wanted, found)) {
            return false;
          }
        }
        return true;
      }
      if (d.size() != l.size()) {
        return false;
      }
      for (int i = 0; i < d.size(); i++) {
        if (!matches(path + "[]", d.get(i), l.get(i))) {
          return false;
        }
      }
      return true;
    }
    return live.isJsonPrimitive() && samePrimitive(desired.getAsJsonPrimitive(), live.getAsJsonPrimitive());
  }

  // ---- patch -----------------------------------------------------------------------------------

  /** The patch for one object: changed desired fields, plus nulls for owned droppable fields to remove. */
  private JsonObject objectPatch(String path, JsonObject desired, JsonObject live, JsonObject owned) {
    JsonObject patch = new JsonObject();
    for (Map.Entry<String, JsonElement> field : desired.entrySet()) {
      String name = field.getKey();
      String fieldPath = child(path, name);
      JsonElement wanted = field.getValue();
      JsonElement found = live == null ? null : live.get(name);
      JsonObject ownedField = ownedChild(owned, "f:" + name);
      if (atomic.contains(fieldPath)) {
        if (!matches(fieldPath, wanted, found)) {
          JsonObject replacement = wanted.deepCopy().getAsJsonObject();
          replacement.addProperty(DELETE_DIRECTIVE, "replace");
          patch.add(name, replacement);
        }
      } else if (wanted.isJsonObject() && found != null && found.isJsonObject()) {
        JsonObject nested = objectPatch(fieldPath, wanted.getAsJsonObject(), found.getAsJsonObject(), ownedField);
        if (nested != null) {
          patch.add(name, nested);
        }
      } else if (wanted.isJsonArray() && keyedLists.containsKey(fieldPath)) {
        JsonArray entries = listPatch(fieldPath, wanted.getAsJsonArray(),
            found != null && found.isJsonArray() ? found.getAsJsonArray() : new JsonArray(), ownedField);
        if (entries != null) {
          patch.add(name, entries);
        }
      } else if (!matches(fieldPath, wanted, found)) {
        patch.add(name, wanted.deepCopy());
      }
    }
    if (live != null && owned != null) {
      // Fields Steward set before that the desired tree no longer names.
      for (String name : live.keySet()) {
        String fieldPath = child(path, name);
        JsonElement present = live.get(name);
        if (desired.has(name) || !owned.has("f:" + name) || present.isJsonNull()) {
          continue;
        }
        JsonObject ownedField = ownedChild(owned, "f:" + name);
        JsonElement removal = null;
        if (keyedLists.containsKey(fieldPath) && present.isJsonArray()) {
          removal = listPatch(fieldPath, new JsonArray(), present.getAsJsonArray(), ownedField);
        } else if (isDroppable(fieldPath)) {
          removal = JsonNull.INSTANCE;
        } else if (present.isJsonObject()) {
          removal = objectPatch(fieldPath, new JsonObject(), present.getAsJsonObject(), ownedField);
        }
        if (removal != null) {
          patch.add(name, removal);
        }
      }
    }
    return patch.isEmpty() ? null : patch;
  }

  /**
   * The patch for a keyed list: desired entries that differ (each with its key fields, so the server
   * merges it into the entry with that key), and delete directives for owned droppable entries the
   * desired list no longer has.
   */
  private JsonArray listPatch(String path, JsonArray desired, JsonArray live, JsonObject owned) {
    List<String> keys = keyedLists.get(path);
    String entryPath = path + "[]";
    JsonArray patch = new JsonArray();
    for (JsonElement wanted : desired) {
      JsonElement found = findByKey(live, keys, wanted);
      if (found == null || !found.isJsonObject()) {
        patch.add(wanted.deepCopy());
        continue;
      }
      JsonObject entryPatch = objectPatch(entryPath, wanted.getAsJsonObject(), found.getAsJsonObject(),
          ownedChild(owned, ownedKey(owned, keys, wanted)));
      if (entryPatch != null) {
        JsonObject withKeys = keyFields(keys, wanted);
        entryPatch.entrySet().forEach(e -> withKeys.add(e.getKey(), e.getValue()));
        patch.add(withKeys);
      }
    }
    if (owned != null && isDroppable(entryPath)) {
      for (JsonElement present : live) {
        if (findByKey(desired, keys, present) == null && ownedKey(owned, keys, present) != null) {
          JsonObject delete = keyFields(keys, present);
          delete.addProperty(DELETE_DIRECTIVE, "delete");
          patch.add(delete);
        }
      }
    }
    return patch.isEmpty() ? null : patch;
  }

  private boolean isDroppable(String path) {
    if (droppable.contains(path)) {
      return true;
    }
    int dot = path.lastIndexOf('.');
    return dot > 0 && droppable.contains(path.substring(0, dot) + ".*");
  }

  // ---- fieldsV1 --------------------------------------------------------------------------------

  private static JsonObject ownedChild(JsonObject owned, String key) {
    if (owned == null || key == null) {
      return null;
    }
    JsonElement child = owned.get(key);
    return child != null && child.isJsonObject() ? child.getAsJsonObject() : null;
  }

  /** The {@code k:{...}} key under which {@code owned} lists the entry with {@code entry}'s keys, or null. */
  private static String ownedKey(JsonObject owned, List<String> keys, JsonElement entry) {
    if (owned == null || !entry.isJsonObject()) {
      return null;
    }
    JsonObject wantedKeys = keyFields(keys, entry);
    for (String key : owned.keySet()) {
      if (key.startsWith("k:")) {
        JsonElement parsed = JsonParser.parseString(key.substring(2));
        if (parsed.isJsonObject() && sameKeys(parsed.getAsJsonObject(), wantedKeys)) {
          return key;
        }
      }
    }
    return null;
  }

  private static boolean sameKeys(JsonObject a, JsonObject b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    return a.entrySet().stream().allMatch(e -> e.getValue().isJsonPrimitive() && b.get(e.getKey()).isJsonPrimitive()
        && samePrimitive(e.getValue().getAsJsonPrimitive(), b.get(e.getKey()).getAsJsonPrimitive()));
  }

  /** Merges the {@code fieldsV1} trees of several managedFields entries into one. */
  public static JsonObject union(List<JsonObject> fieldSets) {
    JsonObject result = new JsonObject();
    fieldSets.forEach(set -> mergeInto(result, set));
    return result;
  }

  private static void mergeInto(JsonObject target, JsonObject source) {
    for (Map.Entry<String, JsonElement> e : source.entrySet()) {
      JsonElement existing = target.get(e.getKey());
      if (existing != null && existing.isJsonObject() && e.getValue().isJsonObject()) {
        mergeInto(existing.getAsJsonObject(), e.getValue().getAsJsonObject());
      } else {
        target.add(e.getKey(), e.getValue().deepCopy());
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /**
   * Drops empty arrays and objects and nulls. client-java's models start their lists as empty ones,
   * which a desired tree must not pass on: an empty list is not something the spec sets.
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

  private static boolean samePrimitive(JsonPrimitive a, JsonPrimitive b) {
    if (a.isNumber() && b.isNumber()) {
      return a.getAsBigDecimal().compareTo(b.getAsBigDecimal()) == 0;
    }
    return a.equals(b);
  }

  private static JsonObject keyFields(List<String> keys, JsonElement entry) {
    JsonObject result = new JsonObject();
    if (entry.isJsonObject()) {
      for (String key : keys) {
        JsonElement value = entry.getAsJsonObject().get(key);
        if (value != null && !value.isJsonNull()) {
          result.add(key, value.deepCopy());
        }
      }
    }
    return result;
  }

  private static JsonElement findByKey(JsonArray array, List<String> keys, JsonElement wanted) {
    JsonObject wantedKeys = keyFields(keys, wanted);
    if (wantedKeys.isEmpty()) {
      return null;
    }
    for (JsonElement element : array) {
      if (element.isJsonObject() && sameKeys(keyFields(keys, element), wantedKeys)) {
        return element;
      }
    }
    return null;
  }
}
