package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;
import static io.steward.operator.deploy.Manifests.value;
import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import io.steward.operator.support.Crds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart's limits on what a WebApp may ask for (admission.* values): the ValidatingAdmissionPolicy
 * and binding rendered from them, their defaults, and the kustomize copy in config/policy.
 * {@code WebAppDeputyIT} puts the rendered policy on a real API server.
 */
class AdmissionPolicyChartTest {
  private static final String NS = "steward-system";
  private static final String POLICY = "steward-webapp-limits";

  static List<Map<String, Object>> valueCombinations() {
    return List.of(Map.of(),
        Map.of("admission", Map.of("serviceTypes", List.of("ClusterIP"), "maxReplicas", 3)),
        Map.of("admission", Map.of("serviceTypes", List.of("ClusterIP", "NodePort"), "maxReplicas", 1000),
            "watchNamespaces", List.of("team-a")),
        Map.of("admission", Map.of("enabled", false)));
  }

  @ParameterizedTest
  @MethodSource("valueCombinations")
  void lintsClean(Map<String, Object> values) {
    LintResult result = StewardChart.lint(values);
    assertThat(result.isFailed()).as("helm lint --strict with %s: %s", values, result.getMessages()).isFalse();
    assertThat(result.getMessages()).allSatisfy(m -> assertThat(m).startsWith("[INFO]"));
  }

  @Test
  void defaultsAllowEverythingTheCrdAllows() throws IOException {
    Manifests out = StewardChart.template("steward", NS, Map.of());
    Map<String, Object> policy = out.single("ValidatingAdmissionPolicy", "webapp-limits");

    assertThat(variables(policy)).containsEntry("allowedServiceTypes", "[\"ClusterIP\",\"NodePort\",\"LoadBalancer\"]")
        .containsEntry("maxReplicas", String.valueOf(crdMaxReplicas()));
    assertThat(crdServiceTypes()).containsExactly("ClusterIP", "NodePort", "LoadBalancer");
    assertThat(map(policy, "spec")).containsEntry("failurePolicy", "Fail");
    // Creates and updates of WebApps and of their scale subresource (kubectl scale); Steward's own
    // status writes are not checked.
    assertThat(list(policy, "spec", "matchConstraints", "resourceRules")).singleElement().isEqualTo(Map.of(
        "apiGroups", List.of("steward.io"), "apiVersions", List.of("*"), "operations", List.of("CREATE", "UPDATE"),
        "resources", List.of("webapps", "webapps/scale")));
    assertThat(list(policy, "spec", "validations")).extracting(v -> (String) v.get("messageExpression"))
        .anySatisfy(m -> assertThat(m).contains("'spec.serviceType '", "is not allowed here: allowed types are"))
        .anySatisfy(m -> assertThat(m).contains("'spec.replicas '", "is more than allowed here: at most"));
    assertThat(list(policy, "spec", "validations")).allSatisfy(v -> assertThat(v).containsEntry("reason", "Forbidden"));

    Map<String, Object> binding = out.single("ValidatingAdmissionPolicyBinding", "webapp-limits");
    assertThat(Manifests.name(policy)).isEqualTo(POLICY);
    assertThat(map(binding, "spec")).isEqualTo(Map.of("policyName", POLICY, "validationActions", List.of("Deny")));
  }

  @Test
  void valuesBecomeThePolicysVariables() {
    Manifests out = StewardChart.template("ops", NS,
        Map.of("admission", Map.of("serviceTypes", List.of("ClusterIP"), "maxReplicas", 3)));
    Map<String, Object> policy = out.single("ValidatingAdmissionPolicy", "webapp-limits");
    assertThat(Manifests.name(policy)).isEqualTo("ops-steward-webapp-limits");
    assertThat(variables(policy)).containsEntry("allowedServiceTypes", "[\"ClusterIP\"]").containsEntry("maxReplicas", "3");
    assertThat(value(out.single("ValidatingAdmissionPolicyBinding", "webapp-limits"), "spec", "policyName")).isEqualTo("ops-steward-webapp-limits");
  }

  @Test
  void watchNamespacesLimitsTheBindingToThem() {
    Manifests out = StewardChart.template("steward", NS, Map.of("watchNamespaces", List.of("team-a", "team-b")));
    assertThat(value(out.single("ValidatingAdmissionPolicyBinding", "webapp-limits"), "spec", "matchResources", "namespaceSelector"))
        .isEqualTo(Map.of("matchExpressions", List.of(Map.of("key", "kubernetes.io/metadata.name", "operator", "In",
            "values", List.of("team-a", "team-b")))));
  }

  @Test
  void canBeLeftOut() {
    Manifests out = StewardChart.template("steward", NS, Map.of("admission", Map.of("enabled", false)));
    assertThat(out.ofKind("ValidatingAdmissionPolicy")).noneMatch(p -> Manifests.name(p).contains("webapp-limits"));
    assertThat(out.ofKind("ValidatingAdmissionPolicyBinding")).noneMatch(p -> Manifests.name(p).contains("webapp-limits"));
  }

  @Test
  void kustomizeInstallsTheSamePolicyAsTheChartsDefaults() {
    Manifests chart = StewardChart.template("steward", NS, Map.of());
    Manifests kustomize = Manifests.parse(Kubectl.kustomize(Path.of("config", "policy")).orFail("kubectl kustomize config/policy").stdout());
    assertThat(map(kustomize.single("ValidatingAdmissionPolicy", "webapp-limits"), "spec"))
        .isEqualTo(map(chart.single("ValidatingAdmissionPolicy", "webapp-limits"), "spec"));
    assertThat(map(kustomize.single("ValidatingAdmissionPolicyBinding", "webapp-limits"), "spec"))
        .isEqualTo(Map.of("policyName", "webapp-limits", "validationActions", List.of("Deny")));
  }

  private static Map<String, Object> variables(Map<String, Object> policy) {
    return list(policy, "spec", "variables").stream()
        .collect(Collectors.toMap(v -> (String) v.get("name"), v -> v.get("expression")));
  }

  private static Object crdMaxReplicas() throws IOException {
    return crdSpecProperty("replicas").get("maximum");
  }

  @SuppressWarnings("unchecked")
  private static List<String> crdServiceTypes() throws IOException {
    return (List<String>) crdSpecProperty("serviceType").get("enum");
  }

  private static Map<String, Object> crdSpecProperty(String name) throws IOException {
    Map<String, Object> crd = new Yaml().load(Files.readString(Crds.WEBAPP_CRD));
    return map(list(crd, "spec", "versions").get(0), "schema", "openAPIV3Schema", "properties", "spec", "properties", name);
  }
}
