package io.steward.operator.deploy;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.yaml.snakeyaml.Yaml;

/**
 * A multi-document YAML stream of Kubernetes objects (helm template or kustomize output), read as
 * plain maps so that nothing is lost or reinterpreted on the way, with small helpers to find objects
 * and walk into them.
 */
public record Manifests(String text, List<Map<String, Object>> objects) {

  public static Manifests parse(String yaml) {
    List<Map<String, Object>> objects = new ArrayList<>();
    for (Object document : new Yaml().loadAll(yaml)) {
      if (document instanceof Map<?, ?> map && !map.isEmpty()) {
        objects.add(cast(map));
      }
    }
    return new Manifests(yaml, List.copyOf(objects));
  }

  public List<Map<String, Object>> ofKind(String kind) {
    return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
  }

  public List<Map<String, Object>> where(Predicate<Map<String, Object>> filter) {
    return objects.stream().filter(filter).toList();
  }

  /** The one object of this kind, failing when there is none or several. */
  public Map<String, Object> single(String kind) {
    return single(kind, "");
  }

  /** The one object of this kind whose name contains {@code nameContains} (several kinds share a chart). */
  public Map<String, Object> single(String kind, String nameContains) {
    List<Map<String, Object>> found = ofKind(kind).stream().filter(o -> name(o).contains(nameContains)).toList();
    if (found.size() != 1) {
      throw new AssertionError("expected exactly one " + kind + " named *" + nameContains + "* but found "
          + found.size() + " in:\n" + text);
    }
    return found.get(0);
  }

  public Map<String, Object> get(String kind, String namespace, String name) {
    return objects.stream()
        .filter(o -> kind.equals(o.get("kind")) && name.equals(name(o)) && Objects.equals(namespace, namespace(o)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + namespace + "/" + name + " in:\n" + text));
  }

  public List<String> kinds() {
    return objects.stream().map(o -> (String) o.get("kind")).toList();
  }

  public static String name(Map<String, Object> object) {
    return (String) map(object, "metadata").get("name");
  }

  public static String namespace(Map<String, Object> object) {
    return (String) map(object, "metadata").get("namespace");
  }

  /** Walks a path of map keys; a number selects a list element. Null when any step is missing. */
  @SuppressWarnings("unchecked")
  public static <T> T at(Object root, Object... path) {
    Object current = root;
    for (Object step : path) {
      if (current instanceof Map<?, ?> map && step instanceof String key) {
        current = map.get(key);
      } else if (current instanceof List<?> list && step instanceof Integer index) {
        current = index < list.size() ? list.get(index) : null;
      } else {
        return null;
      }
    }
    return (T) current;
  }

  /** {@link #at} without a type, for assertions. */
  public static Object value(Object root, Object... path) {
    return at(root, path);
  }

  public static Map<String, Object> map(Object root, Object... path) {
    Map<String, Object> found = at(root, path);
    return found == null ? Map.of() : found;
  }

  public static List<Map<String, Object>> list(Object root, Object... path) {
    List<Map<String, Object>> found = at(root, path);
    return found == null ? List.of() : found;
  }

  /** The object as JSON, for client-java's dynamic API. */
  public static JsonObject json(Map<String, Object> object) {
    return new Gson().toJsonTree(object).getAsJsonObject();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Map<?, ?> map) {
    return (Map<String, Object>) map;
  }
}
