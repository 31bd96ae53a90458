package io.steward.operator.support;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.steward.operator.webapp.api.WebAppSpec.EnvVar;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CRD's bounds on {@code spec.env}, read from the schema itself: how many entries, the longest
 * name, Secret or ConfigMap name and key, and the CEL rule's bound on the characters of all entries
 * together. Tests build the largest env the schema admits from these, so they follow the CRD.
 */
public record EnvLimits(int maxItems, int maxCharacters, int maxName, int maxReference, int maxKey) {
  private static final Pattern RULE_BOUND = Pattern.compile("\\)\\s*\\.sum\\(\\)\\s*<=\\s*(\\d+)");

  public static EnvLimits fromCrd(JsonObject crd) {
    return fromSchema(crd.getAsJsonObject("spec").getAsJsonArray("versions").get(0).getAsJsonObject()
        .getAsJsonObject("schema").getAsJsonObject("openAPIV3Schema").getAsJsonObject("properties")
        .getAsJsonObject("spec").getAsJsonObject("properties").getAsJsonObject("env"));
  }

  /** From the schema of {@code spec.env}. */
  public static EnvLimits fromSchema(JsonObject env) {
    JsonObject item = env.getAsJsonObject("items").getAsJsonObject("properties");
    JsonObject keyRef = item.getAsJsonObject("valueFrom").getAsJsonObject("properties")
        .getAsJsonObject("secretKeyRef").getAsJsonObject("properties");
    return new EnvLimits(env.get("maxItems").getAsInt(), ruleBound(env),
        item.getAsJsonObject("name").get("maxLength").getAsInt(),
        keyRef.getAsJsonObject("name").get("maxLength").getAsInt(),
        keyRef.getAsJsonObject("key").get("maxLength").getAsInt());
  }

  public static EnvLimits fromCrd() {
    return fromCrd(Crds.load());
  }

  private static int ruleBound(JsonObject env) {
    for (JsonElement rule : env.getAsJsonArray("x-kubernetes-validations")) {
      Matcher bound = RULE_BOUND.matcher(rule.getAsJsonObject().get("rule").getAsString());
      if (bound.find()) {
        return Integer.parseInt(bound.group(1));
      }
    }
    throw new IllegalStateException("spec.env of the CRD has no rule bounding the sum of its entries' sizes");
  }

  /**
   * The largest env by size: {@code maxItems} entries, each a reference (which carries the most
   * around what the rule counts), the counted characters spread over all of them to reach exactly
   * {@code characters}. {@code tag} (lower-case letters and digits) goes into every string, so that
   * envs of different tags share no string.
   */
  public List<EnvVar> largest(int characters, String tag) {
    int entries = maxItems;
    if (characters < 3 * entries || characters > entries * (maxName + maxReference + maxKey)) {
      throw new IllegalArgumentException(entries + " references cannot hold exactly " + characters + " characters");
    }
    List<EnvVar> env = new ArrayList<>();
    for (int i = 0; i < entries; i++) {
      int share = characters / entries + (i < characters % entries ? 1 : 0);
      String unique = "E" + i + tag;
      int name = Math.min(maxName, Math.max(share / 3, ("E" + i).length()));
      int reference = Math.min(maxReference, Math.max(1, (share - name) / 2));
      int key = share - name - reference;
      if (key < 1 || key > maxKey) {
        throw new IllegalArgumentException("entry " + i + " cannot hold " + share + " characters");
      }
      env.add(i % 2 == 0
          ? EnvVar.fromSecret(filled(unique, name, '_'), filled(tag + "s" + i, reference, 's'), filled("k" + i + tag, key, 'k'), false)
          : EnvVar.fromConfigMap(filled(unique, name, '_'), filled(tag + "c" + i, reference, 'c'), filled("k" + i + tag, key, 'k'), false));
    }
    return env;
  }

  /** The characters the CRD's rule counts for {@code env}. */
  public static int counted(List<EnvVar> env) {
    int total = 0;
    for (EnvVar e : env) {
      total += e.name().length() + (e.value() == null ? 0 : e.value().length());
      if (e.valueFrom() != null) {
        var ref = e.valueFrom().secretKeyRef() != null ? e.valueFrom().secretKeyRef() : e.valueFrom().configMapKeyRef();
        total += ref.name().length() + ref.key().length();
      }
    }
    return total;
  }

  /** {@code prefix} cut or filled up with {@code fill} to exactly {@code length} characters. */
  private static String filled(String prefix, int length, char fill) {
    if (prefix.length() >= length) {
      return prefix.substring(0, length);
    }
    return prefix + String.valueOf(fill).repeat(length - prefix.length());
  }
}
