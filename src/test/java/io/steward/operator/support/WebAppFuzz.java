package io.steward.operator.support;

import com.github.curiousoddman.rgxgen.RgxGen;
import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * WebApp documents as raw JSON strings, generated from the CRD's own schema: for every field of the
 * spec, values at and around its bounds (lengths, ranges, item counts, the CEL size rule on env),
 * strings that match its pattern and strings that do not, every enum value and some that are not,
 * and quantities a user might write or an attacker might send. Each document is a valid base spec
 * with one or two of these values put in, so most fields are also seen in combination. Deterministic
 * for a seed.
 */
public final class WebAppFuzz {
  /** Quantities the Kubernetes quantity pattern accepts but Steward once could not carry out. */
  public static final List<String> HOSTILE_QUANTITIES = List.of("\"0.000000001m\"", "\"9223372036854775807Ei\"",
      "\"" + "9".repeat(1_000) + "\"", "\"" + "1".repeat(100_000) + "\"", "\"1Ei\"", "\"1.0000000001\"", "\"0.5n\"",
      "\"1.23456789012m\"", "\"1e-10\"", "\"1000E\"", "\"1e30\"", "1" + "0".repeat(30), "\"-1\"", "\"2Pi\"");

  /** One way to change a spec, named after the field and value it sets. */
  public record Mutation(String field, Consumer<JsonObject> apply) {}

  private static final Gson GSON = new Gson();
  private static final String BASE = "{\"image\":\"nginx:1.27\",\"replicas\":1}";

  private final Random random;
  private final List<Mutation> mutations = new ArrayList<>();

  public WebAppFuzz(JsonObject crd, long seed) {
    this.random = new Random(seed);
    JsonObject spec = crd.getAsJsonObject("spec").getAsJsonArray("versions").get(0).getAsJsonObject()
        .getAsJsonObject("schema").getAsJsonObject("openAPIV3Schema").getAsJsonObject("properties")
        .getAsJsonObject("spec").getAsJsonObject("properties");
    for (Map.Entry<String, JsonElement> field : spec.entrySet()) {
      JsonObject schema = field.getValue().getAsJsonObject();
      String name = field.getKey();
      switch (name) {
        case "env" -> envMutations(schema);
        case "resources" -> resourceMutations(schema);
        default -> valuesFor(schema).forEach(v -> mutations.add(new Mutation("spec." + name,
            s -> s.add(name, JsonParser.parseString(v)))));
      }
    }
  }

  public List<Mutation> mutations() {
    return mutations;
  }

  /**
   * The {@code index}th document: mutation {@code index} (cycling, so every one is used) and, in one
   * document of three, a random other, in a WebApp named {@code name}.
   */
  public String document(int index, String name) {
    JsonObject spec = JsonParser.parseString(BASE).getAsJsonObject();
    mutations.get(index % mutations.size()).apply().accept(spec);
    if (random.nextInt(3) == 0) {
      mutations.get(random.nextInt(mutations.size())).apply().accept(spec);
    }
    return "{\"apiVersion\":\"steward.io/v1alpha1\",\"kind\":\"WebApp\",\"metadata\":{\"name\":"
        + GSON.toJson(name) + "},\"spec\":" + GSON.toJson(spec) + "}";
  }

  /** JSON values at and around the bounds of one scalar field, and matching or not its pattern. */
  private List<String> valuesFor(JsonObject schema) {
    List<String> values = new ArrayList<>();
    if (schema.has("enum")) {
      for (JsonElement e : schema.getAsJsonArray("enum")) {
        values.add(e.toString());
        values.add(GSON.toJson(e.getAsString().toLowerCase()));
      }
      values.add("\"Bogus\"");
    }
    boolean intOrString = schema.has("x-kubernetes-int-or-string");
    String type = schema.has("type") ? schema.get("type").getAsString() : "";
    if ("integer".equals(type) || intOrString) {
      long min = schema.has("minimum") ? schema.get("minimum").getAsLong() : 0;
      long max = schema.has("maximum") ? schema.get("maximum").getAsLong() : Integer.MAX_VALUE;
      for (long v : new long[] {min - 1, min, min + 1, max - 1, max, max + 1, (long) Integer.MAX_VALUE + 1}) {
        values.add(Long.toString(v));
      }
      values.add("9223372036854775808");
      if (!intOrString) {
        values.add("\"1\"");
        values.add("1.5");
      }
    }
    if ("boolean".equals(type)) {
      values.addAll(List.of("true", "false", "\"true\""));
    }
    if ("string".equals(type) || intOrString) {
      int minLength = schema.has("minLength") ? schema.get("minLength").getAsInt() : 0;
      int maxLength = schema.has("maxLength") ? schema.get("maxLength").getAsInt() : 256;
      List<String> strings = new ArrayList<>();
      if (schema.has("pattern")) {
        RgxGen pattern = RgxGen.parse(schema.get("pattern").getAsString());
        for (int i = 0; i < 6; i++) {
          strings.add(pattern.generate(random));
        }
        for (int i = 0; i < 3; i++) {
          strings.add(pattern.generateNotMatching(random));
        }
        String matching = pattern.generate(random);
        strings.add(padded(matching, maxLength));
        strings.add(padded(matching, maxLength + 1));
        strings.add(padded(matching, minLength));
      } else if (!schema.has("enum")) {
        strings.add("x".repeat(Math.max(minLength, 1)));
        strings.add("é✓ \\u0000\t" + "y".repeat(8));
        strings.add("v".repeat(maxLength));
        strings.add("v".repeat(maxLength + 1));
      }
      if (minLength > 0) {
        strings.add("");
      }
      strings.forEach(s -> values.add(GSON.toJson(s)));
    }
    return values;
  }

  /** A string of exactly {@code length} characters that keeps its pattern: its first character repeated. */
  private static String padded(String matching, int length) {
    if (matching.isEmpty()) {
      return "a".repeat(length);
    }
    if (matching.length() >= length) {
      return length == 0 ? "" : matching.substring(0, length);
    }
    return matching.charAt(0) + String.valueOf(matching.charAt(0)).repeat(length - matching.length())
        + matching.substring(1);
  }

  private void resourceMutations(JsonObject schema) {
    for (String bound : List.of("requests", "limits")) {
      JsonObject map = schema.getAsJsonObject("properties").getAsJsonObject(bound);
      List<String> names = quotedNames(map);
      List<String> quantities = new ArrayList<>(valuesFor(map.getAsJsonObject("additionalProperties")));
      quantities.addAll(HOSTILE_QUANTITIES);
      for (String quantity : quantities) {
        String resource = names.get(random.nextInt(names.size()));
        mutations.add(new Mutation("spec.resources." + bound + "." + resource,
            s -> resources(s, bound).add(resource, JsonParser.parseString(quantity))));
      }
      int maxProperties = map.has("maxProperties") ? map.get("maxProperties").getAsInt() : names.size();
      mutations.add(new Mutation("spec.resources." + bound + " (an unknown resource)",
          s -> resources(s, bound).addProperty("nvidia.com/gpu", "1")));
      mutations.add(new Mutation("spec.resources." + bound + " (more than maxProperties)", s -> {
        for (int i = 0; i <= maxProperties; i++) {
          resources(s, bound).addProperty(i < names.size() ? names.get(i) : "extra-" + i, "1");
        }
      }));
    }
  }

  private static JsonObject resources(JsonObject spec, String bound) {
    if (!spec.has("resources")) {
      spec.add("resources", new JsonObject());
    }
    JsonObject resources = spec.getAsJsonObject("resources");
    if (!resources.has(bound)) {
      resources.add(bound, new JsonObject());
    }
    return resources.getAsJsonObject(bound);
  }

  /** The resource names a CEL rule of the map lists, e.g. {@code k in ['cpu', 'memory']}. */
  private static List<String> quotedNames(JsonObject map) {
    List<String> names = new ArrayList<>();
    for (JsonElement rule : map.getAsJsonArray("x-kubernetes-validations")) {
      Matcher m = Pattern.compile("'([a-z-]+)'").matcher(rule.getAsJsonObject().get("rule").getAsString());
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names.isEmpty() ? List.of("cpu", "memory") : names;
  }

  private void envMutations(JsonObject schema) {
    JsonObject item = schema.getAsJsonObject("items").getAsJsonObject("properties");
    List<String> names = valuesFor(item.getAsJsonObject("name"));
    List<String> values = valuesFor(item.getAsJsonObject("value"));
    for (String name : names) {
      mutations.add(new Mutation("spec.env[].name", s -> env(s, List.of("{\"name\":" + name + ",\"value\":\"v\"}"))));
    }
    for (String value : values) {
      mutations.add(new Mutation("spec.env[].value", s -> env(s, List.of("{\"name\":\"V\",\"value\":" + value + "}"))));
    }
    int maxItems = schema.get("maxItems").getAsInt();
    for (int count : new int[] {maxItems, maxItems + 1}) {
      mutations.add(new Mutation("spec.env (" + count + " items)", s -> {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          items.add("{\"name\":\"V" + i + "\",\"value\":\"" + i + "\"}");
        }
        env(s, items);
      }));
    }
    mutations.add(new Mutation("spec.env (a name twice)",
        s -> env(s, List.of("{\"name\":\"A\",\"value\":\"1\"}", "{\"name\":\"A\",\"value\":\"2\"}"))));
    // The CEL rule on the total size of env: exactly at it, and one character over, in values and in references.
    EnvLimits limits = EnvLimits.fromSchema(schema);
    int total = limits.maxCharacters();
    for (int size : new int[] {total, total + 1}) {
      mutations.add(new Mutation("spec.env (" + size + " characters in all)", s -> {
        List<String> items = new ArrayList<>();
        int left = size;
        for (int i = 0; left > 0; i++) {
          String name = "V" + i;
          int value = Math.min(left - name.length(), 4_000);
          items.add("{\"name\":\"" + name + "\",\"value\":\"" + "x".repeat(value) + "\"}");
          left -= name.length() + value;
        }
        env(s, items);
      }));
      mutations.add(new Mutation("spec.env (" + size + " characters in all, in references)",
          s -> s.add("env", GSON.toJsonTree(limits.largest(size, "fuzz")))));
    }
  }

  private static void env(JsonObject spec, List<String> items) {
    JsonArray env = new JsonArray();
    items.forEach(i -> env.add(JsonParser.parseString(i)));
    spec.add("env", env);
  }
}
