package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;
import static io.steward.operator.deploy.Manifests.value;
import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart's operational values: the NetworkPolicy in front of the management port, the
 * `helm test` pod, the tracing endpoint; that every pod it renders meets the restricted Pod Security
 * Standard whatever the values; and its metadata and README.
 */
class ChartOperationsTest {
  private static final String NS = "steward-system";
  private static final Map<String, Object> NETWORK_POLICY = Map.of("networkPolicy", Map.of("enabled", true,
      "prometheus", Map.of("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring")),
          "podSelector", Map.of("matchLabels", Map.of("app.kubernetes.io/name", "prometheus"))),
      "kubeletCIDRs", List.of("10.0.0.0/16", "fd00::/64")));

  /** Each new value on its own and together with the others it interacts with. */
  static List<Map<String, Object>> valueCombinations() {
    Map<String, Object> everything = new LinkedHashMap<>(NETWORK_POLICY);
    everything.put("tracing", Map.of("otlpEndpoint", "http://otel-collector.observability.svc:4318/v1/traces",
        "samplingProbability", 1));
    everything.put("watchNamespaces", List.of("team-a"));
    return List.of(
        Map.of(),
        NETWORK_POLICY,
        Map.of("networkPolicy", Map.of("enabled", true)),
        Map.of("tests", Map.of("enabled", false)),
        Map.of("networkPolicy", Map.of("enabled", true), "tests", Map.of("enabled", false)),
        Map.of("networkPolicy", Map.of("enabled", true), "metrics", Map.of("service", Map.of("enabled", false))),
        Map.of("tests", Map.of("image", "registry.example/tools/busybox:1.37")),
        Map.of("replicaCount", 1, "leaderElection", Map.of("enabled", false)),
        Map.of("tracing", Map.of("otlpEndpoint", "https://collector:4318/v1/traces")),
        everything);
  }

  @ParameterizedTest
  @MethodSource("valueCombinations")
  void lintsClean(Map<String, Object> values) throws Exception {
    // lint replaces whole top-level values: give it each one merged into the chart's defaults.
    Map<String, Object> defaults = new Yaml().load(Files.readString(StewardChart.CHART.resolve("values.yaml")));
    Map<String, Object> merged = new LinkedHashMap<>();
    values.keySet().forEach(key -> merged.put(key, merge(defaults.get(key), values.get(key))));
    LintResult result = StewardChart.lint(merged);
    assertThat(result.isFailed()).as("helm lint --strict with %s: %s", values, result.getMessages()).isFalse();
    assertThat(result.getMessages()).allSatisfy(m -> assertThat(m).startsWith("[INFO]"));
  }

  @ParameterizedTest
  @MethodSource("valueCombinations")
  void everyPodTheChartRendersMeetsTheRestrictedProfile(Map<String, Object> values) {
    Manifests out = StewardChart.template("steward", NS, values);
    List<Map<String, Object>> pods = new ArrayList<>(RestrictedPodSecurity.podSpecs(out));
    pods.addAll(RestrictedPodSecurity.podSpecs(StewardChart.hooks("steward", NS, values)));
    assertThat(pods).isNotEmpty().allSatisfy(pod ->
        assertThat(RestrictedPodSecurity.violations(pod)).as("restricted profile with %s", values).isEmpty());
  }

  @Test
  void theRestrictedCheckRefusesWhatTheProfileRefuses() {
    Map<String, Object> pod = RestrictedPodSecurity.podSpecs(StewardChart.hooks("steward", NS, Map.of())).get(0);
    assertThat(RestrictedPodSecurity.violations(pod)).isEmpty();
    Map<String, Object> container = new LinkedHashMap<>(list(pod, "containers").get(0));
    container.put("securityContext", Map.of("capabilities", Map.of("add", List.of("NET_ADMIN"))));
    Map<String, Object> broken = new LinkedHashMap<>(pod);
    broken.put("containers", List.of(container));
    broken.put("securityContext", Map.of("runAsUser", 0));
    broken.put("hostNetwork", true);
    broken.put("volumes", List.of(Map.of("name", "host", "hostPath", Map.of("path", "/"))));
    assertThat(RestrictedPodSecurity.violations(broken)).containsExactlyInAnyOrder("hostNetwork", "volume type of host",
        "container check: allowPrivilegeEscalation must be false", "container check: capabilities.drop must include ALL",
        "container check: capabilities.add beyond NET_BIND_SERVICE", "container check: runAsNonRoot must be true",
        "container check: runAsUser 0", "container check: seccompProfile must be RuntimeDefault or Localhost");
  }

  @Test
  void noNetworkPolicyByDefault() {
    assertThat(StewardChart.template("steward", NS, Map.of()).ofKind("NetworkPolicy")).isEmpty();
  }

  @Test
  void theNetworkPolicyAdmitsOnlyPrometheusTheTestPodAndTheKubeletToTheManagementPort() {
    Manifests out = StewardChart.template("steward", NS, NETWORK_POLICY);
    Map<String, Object> policy = out.single("NetworkPolicy");
    Map<String, Object> deployment = out.single("Deployment");
    assertThat(map(policy, "spec", "podSelector", "matchLabels"))
        .isEqualTo(map(deployment, "spec", "selector", "matchLabels"));
    // Ingress only: the operator's own egress (API server, DNS, a collector) stays open.
    assertThat(value(policy, "spec", "policyTypes")).isEqualTo(List.of("Ingress"));
    Map<String, Object> rule = list(policy, "spec", "ingress").get(0);
    assertThat(list(policy, "spec", "ingress")).hasSize(1);
    assertThat(list(rule, "ports")).containsExactly(Map.of("port", "management", "protocol", "TCP"));
    assertThat(list(deployment, "spec", "template", "spec", "containers").get(0))
        .satisfies(c -> assertThat(list(c, "ports")).extracting(p -> p.get("name")).containsExactly("management"));

    List<Map<String, Object>> from = list(rule, "from");
    assertThat(from).hasSize(4);
    // Prometheus: both selectors in one peer, so only those pods in those namespaces.
    assertThat(from.get(0)).isEqualTo(Map.of(
        "namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring")),
        "podSelector", Map.of("matchLabels", Map.of("app.kubernetes.io/name", "prometheus"))));
    // The helm test pod, selected by its own labels, which select no operator pod.
    Map<String, Object> testPod = StewardChart.hooks("steward", NS, NETWORK_POLICY).single("Pod");
    Map<String, Object> testLabels = map(testPod, "metadata", "labels");
    assertThat(from.get(1).keySet()).containsExactly("podSelector");
    assertThat(testLabels).containsAllEntriesOf(map(from.get(1), "podSelector", "matchLabels"));
    assertThat(testLabels).doesNotContainEntry("app.kubernetes.io/component", "operator");
    assertThat(map(deployment, "spec", "template", "metadata", "labels"))
        .doesNotContainEntry("app.kubernetes.io/component", "test");
    assertThat(from.subList(2, 4)).containsExactly(Map.of("ipBlock", Map.of("cidr", "10.0.0.0/16")),
        Map.of("ipBlock", Map.of("cidr", "fd00::/64")));
  }

  @Test
  void withTheDefaultsThePolicyAdmitsPrometheusPodsOfAnyNamespace() {
    Map<String, Object> values = Map.of("networkPolicy", Map.of("enabled", true), "tests", Map.of("enabled", false));
    List<Map<String, Object>> from = list(list(StewardChart.template("steward", NS, values).single("NetworkPolicy"),
        "spec", "ingress").get(0), "from");
    assertThat(from).containsExactly(Map.of("namespaceSelector", Map.of(),
        "podSelector", Map.of("matchLabels", Map.of("app.kubernetes.io/name", "prometheus"))));
  }

  @Test
  void theHelmTestPodAsksTheOperatorThroughTheMetricsService() {
    Manifests hooks = StewardChart.hooks("steward", NS, Map.of());
    Map<String, Object> pod = hooks.single("Pod");
    assertThat(hooks.kinds()).containsExactly("Pod");
    assertThat(map(pod, "metadata", "annotations")).containsEntry(StewardChart.RENDERED_HOOK, "test")
        .containsEntry("helm.sh/hook-delete-policy", "before-hook-creation,hook-succeeded");
    assertThat(pod.get("kind")).isEqualTo("Pod");
    assertThat(value(pod, "spec", "restartPolicy")).isEqualTo("Never");
    assertThat(value(pod, "spec", "automountServiceAccountToken")).isEqualTo(false);
    Map<String, Object> container = list(pod, "spec", "containers").get(0);
    assertThat(container.get("image")).isEqualTo("busybox:1.37");
    assertThat(HelmChartTest.env(container)).containsEntry("STEWARD_URL", "http://steward-metrics.steward-system.svc:8081");
    // The Service the URL names is the chart's, on the management port.
    Map<String, Object> service = StewardChart.template("steward", NS, Map.of()).single("Service");
    assertThat(Manifests.name(service)).isEqualTo("steward-metrics");
    assertThat(value(service, "spec", "ports", 0, "port")).isEqualTo(8081);
    String script = String.join("\n", (List<String>) container.get("command"));
    assertThat(script).contains("set -e", "$STEWARD_URL/actuator/health/readiness", "$STEWARD_URL/actuator/info",
        "$STEWARD_URL/actuator/leader");

    Map<String, Object> single = StewardChart.hooks("steward", NS, Map.of("replicaCount", 1,
        "leaderElection", Map.of("enabled", false))).single("Pod");
    assertThat(String.join("\n", (List<String>) list(single, "spec", "containers").get(0).get("command")))
        .contains("/actuator/health/readiness").doesNotContain("/actuator/leader");
  }

  @Test
  void noHelmTestWithoutTheMetricsServiceOrWhenTurnedOff() {
    assertThat(StewardChart.hooks("steward", NS, Map.of("tests", Map.of("enabled", false))).objects()).isEmpty();
    Map<String, Object> noService = Map.of("metrics", Map.of("service", Map.of("enabled", false)),
        "networkPolicy", Map.of("enabled", true));
    assertThat(StewardChart.hooks("steward", NS, noService).objects()).isEmpty();
    assertThat(list(list(StewardChart.template("steward", NS, noService).single("NetworkPolicy"), "spec", "ingress")
        .get(0), "from")).hasSize(1);
  }

  @Test
  void tracingIsOffUnlessAnEndpointIsGiven() {
    Map<String, Object> off = HelmChartTest.env(container(StewardChart.template("steward", NS, Map.of())));
    assertThat(off).doesNotContainKeys("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT",
        "MANAGEMENT_TRACING_SAMPLING_PROBABILITY");
    Map<String, Object> on = HelmChartTest.env(container(StewardChart.template("steward", NS, Map.of("tracing",
        Map.of("otlpEndpoint", "http://collector:4318/v1/traces", "samplingProbability", 0.5)))));
    assertThat(on).containsEntry("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT", "http://collector:4318/v1/traces")
        .containsEntry("MANAGEMENT_TRACING_SAMPLING_PROBABILITY", "0.5");
  }

  @Test
  @SuppressWarnings("unchecked")
  void chartMetadataIsComplete() throws Exception {
    Map<String, Object> chart = new Yaml().load(Files.readString(StewardChart.CHART.resolve("Chart.yaml")));
    assertThat(chart).containsKeys("description", "home", "sources", "maintainers", "keywords", "kubeVersion",
        "annotations");
    assertThat((List<Map<String, Object>>) chart.get("maintainers")).allSatisfy(m -> assertThat(m).containsKey("name"));
    Map<String, String> annotations = (Map<String, String>) chart.get("annotations");
    // The images listed for Artifact Hub are the ones the chart deploys by default.
    Map<String, Object> values = new Yaml().load(Files.readString(StewardChart.CHART.resolve("values.yaml")));
    assertThat(annotations.get("artifacthub.io/images"))
        .contains("image: " + value(values, "image", "repository") + ":" + chart.get("appVersion"))
        .contains("image: " + value(values, "tests", "image"));
    assertThat(annotations.get("artifacthub.io/crds")).contains("name: webapps.steward.io");
  }

  /** Maps whose keys are the user's own (labels, selectors, Kubernetes objects): documented as a whole. */
  private static final Set<String> FREE_FORM = Set.of("resources", "podSecurityContext", "securityContext", "affinity",
      "nodeSelector", "podAnnotations", "podLabels", "annotations", "labels", "namespaceSelector", "podSelector",
      "global");

  @Test
  void theChartReadmeDocumentsEveryValue() throws Exception {
    Map<String, Object> values = new Yaml().load(Files.readString(StewardChart.CHART.resolve("values.yaml")));
    String readme = Files.readString(StewardChart.CHART.resolve("README.md"));
    List<String> paths = new ArrayList<>();
    leaves("", values, paths);
    assertThat(paths).hasSizeGreaterThan(40)
        .allSatisfy(path -> assertThat(readme).as("README row for %s", path).contains("| `" + path + "` |"));
  }

  @SuppressWarnings("unchecked")
  private static void leaves(String prefix, Map<String, Object> values, List<String> into) {
    for (Map.Entry<String, Object> entry : values.entrySet()) {
      String path = prefix + entry.getKey();
      if (entry.getValue() instanceof Map<?, ?> nested && !nested.isEmpty() && !FREE_FORM.contains(entry.getKey())) {
        leaves(path + ".", (Map<String, Object>) nested, into);
      } else {
        into.add(path);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Object merge(Object defaults, Object override) {
    if (!(defaults instanceof Map<?, ?> base) || !(override instanceof Map<?, ?> changes)) {
      return override;
    }
    Map<String, Object> merged = new LinkedHashMap<>((Map<String, Object>) base);
    ((Map<String, Object>) changes).forEach((key, value) -> merged.put(key, merge(merged.get(key), value)));
    return merged;
  }

  private static Map<String, Object> container(Manifests out) {
    return list(out.single("Deployment"), "spec", "template", "spec", "containers").get(0);
  }
}
