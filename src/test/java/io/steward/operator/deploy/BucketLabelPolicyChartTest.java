package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import com.marcnuri.helm.LintResult;
import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.operator.support.WebAppSpecGenerator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sharded mode's bucket-labelling MutatingAdmissionPolicy as the chart renders it. The policy's CEL
 * walks a table of next states the template computes; this test walks the same table in Java over
 * random names and compares with {@link BucketHash}, so a wrong table fails here in milliseconds.
 * {@code BucketLabelPolicyIT} has the API server evaluate it.
 */
class BucketLabelPolicyChartTest {
  private static final String NS = "steward-system";
  private static final Pattern FIRST_STEP = Pattern.compile("variables\\.step\\[\\((\\d+)\\) \\* (\\d+) \\+ variables\\.bytes\\[0\\]\\]");
  private static final Pattern CODE = Pattern.compile("'(.)': (\\d+)");

  private static Manifests render(Map<String, Object> sharding) {
    return StewardChart.template("steward", NS, Map.of("sharding", sharding));
  }

  @ParameterizedTest(name = "{0} buckets")
  @ValueSource(ints = {2, 4, 8, 16, 32, 64})
  void theTemplatesWalkGivesStewardsBucketForEveryName(int buckets) {
    Map<String, Object> policy = render(Map.of("enabled", true, "buckets", buckets, "labelAtAdmission", true))
        .single("MutatingAdmissionPolicy", "bucket-label");
    Map<String, String> variables = list(policy, "spec", "variables").stream()
        .collect(Collectors.toMap(v -> (String) v.get("name"), v -> (String) v.get("expression")));
    List<Integer> step = new com.google.gson.Gson().fromJson(variables.get("step"),
        new com.google.gson.reflect.TypeToken<List<Integer>>() {}.getType());
    Map<Character, Integer> codes = new HashMap<>();
    for (Matcher m = CODE.matcher(variables.get("codes")); m.find(); ) {
      codes.put(m.group(1).charAt(0), Integer.parseInt(m.group(2)));
    }
    Matcher first = FIRST_STEP.matcher(variables.get("h0"));
    assertThat(first.find()).as("h0: %s", variables.get("h0")).isTrue();
    int stride = Integer.parseInt(first.group(2));
    int padding = JsonParser.parseString(variables.get("bytes").replaceFirst("(?s)^.*\\+ ", "")).getAsJsonArray().size();
    long groups = variables.keySet().stream().filter(n -> n.matches("h\\d+")).count();
    assertThat(stride).isEqualTo(buckets + 1);
    assertThat(step).hasSize(buckets * (buckets + 1));
    assertThat(padding).isEqualTo(8);
    assertThat(groups * 8).isGreaterThanOrEqualTo(127);
    assertThat(variables.get("h1")).startsWith("variables.length <= 8 ? variables.h0 : variables.step[")
        .contains("[(variables.h0) * " + stride + " + variables.bytes[8]]");
    assertThat(value(policy, "spec", "mutations")).asString().contains("string(variables.h" + (groups - 1) + ")");

    Random random = new Random(buckets);
    WebAppSpecGenerator names = new WebAppSpecGenerator(buckets);
    for (int i = 0; i < 2_000; i++) {
      String key = names.name(1 + random.nextInt(63)) + "/" + names.name(1 + random.nextInt(63));
      int state = Integer.parseInt(first.group(1));
      // The policy's groups: whole groups of 8 steps while any of the key is left, padded at its end.
      for (int k = 0; k < (key.length() + 7) / 8 * 8; k++) {
        int input = k < key.length() ? codes.get(key.charAt(k)) : buckets;
        state = step.get(state * stride + input);
      }
      String[] parts = key.split("/");
      assertThat(state).as("bucket of %s", key).isEqualTo(BucketHash.bucketOf(parts[0], parts[1], buckets));
    }
  }

  @Test
  void labelsCreatesOfWebAppsOnlyAndGivesWayWhenItFails() {
    Manifests out = render(Map.of("enabled", true, "labelAtAdmission", true));
    Map<String, Object> policy = out.single("MutatingAdmissionPolicy", "bucket-label");
    assertThat(list(policy, "spec", "matchConstraints", "resourceRules")).singleElement().isEqualTo(Map.of(
        "apiGroups", List.of("steward.io"), "apiVersions", List.of("*"), "operations", List.of("CREATE"),
        "resources", List.of("webapps")));
    assertThat(value(policy, "spec", "failurePolicy")).isEqualTo("Ignore");
    assertThat(value(out.single("MutatingAdmissionPolicyBinding", "bucket-label"), "spec", "policyName"))
        .isEqualTo(Manifests.name(policy));
  }

  @Test
  void onlyInShardedModeAndOnlyWhenAsked() {
    assertThat(render(Map.of("enabled", false, "labelAtAdmission", true)).ofKind("MutatingAdmissionPolicy")).isEmpty();
    assertThat(render(Map.of("enabled", true, "labelAtAdmission", false)).ofKind("MutatingAdmissionPolicy")).isEmpty();
  }

  /**
   * auto follows the API versions helm is given: none from a cluster here, and helm's own list has no
   * admissionregistration.k8s.io/v1 MutatingAdmissionPolicy, as `helm template` without
   * --api-versions would render it.
   */
  @Test
  void autoLeavesThePolicyOutWhereTheClusterIsNotKnownToServeIt() {
    assertThat(render(Map.of("enabled", true, "buckets", 32, "labelAtAdmission", "auto")).ofKind("MutatingAdmissionPolicy")).isEmpty();
  }

  @Test
  void aBucketCountThePolicyCannotWalkIsRefusedByName() {
    assertThatThrownBy(() -> render(Map.of("enabled", true, "buckets", 24, "labelAtAdmission", true)))
        .hasMessageContaining("sharding.labelAtAdmission needs sharding.buckets to be 2, 4, 8, 16, 32 or 64 (it is 24)");
    assertThat(render(Map.of("enabled", true, "buckets", 24, "labelAtAdmission", false)).ofKind("MutatingAdmissionPolicy")).isEmpty();
  }

  @Test
  void lintsClean() {
    LintResult result = StewardChart.lint(Map.of("sharding", Map.of("enabled", true, "buckets", 32, "labelAtAdmission", true)));
    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
  }
}
