package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

import io.steward.operator.support.Promtool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Steward's alerts: promtool checks the rules and runs their unit tests on synthetic series
 * (src/test/prometheus/rules.test.yaml); every alert has a case where it fires and one where it must
 * not; the chart's PrometheusRule and config/prometheus carry exactly these rules.
 */
class PrometheusRulesTest {
  static final Path RULES = StewardChart.CHART.resolve("files").resolve("prometheus-rules.yaml");
  static final Path RULE_TESTS = Path.of("src", "test", "prometheus", "rules.test.yaml");
  private static final Path KUSTOMIZE_RULES = Path.of("config", "prometheus", "prometheus_rule.yaml");

  @Test
  void promtoolChecksTheRules() {
    Promtool.Result result = Promtool.run("check", "rules", RULES.toString());
    assertThat(result.exitCode()).as("promtool check rules: %s", result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS: " + alerts().size() + " rules found");
  }

  @Test
  void promtoolUnitTestsOfTheRulesPass() {
    Promtool.Result result = Promtool.run("test", "rules", RULE_TESTS.toString());
    assertThat(result.exitCode()).as("promtool test rules: %s", result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS");
  }

  @Test
  void everyAlertIsTestedFiringAndSilent() throws IOException {
    Map<String, Object> tests = new Yaml().load(Files.readString(RULE_TESTS));
    Set<String> firing = new TreeSet<>();
    Set<String> silent = new TreeSet<>();
    for (Map<String, Object> group : maps(tests.get("tests"))) {
      for (Map<String, Object> check : maps(group.get("alert_rule_test"))) {
        List<?> expected = (List<?>) check.get("exp_alerts");
        (expected == null || expected.isEmpty() ? silent : firing).add((String) check.get("alertname"));
      }
    }
    assertThat(firing).as("alerts with a case where they fire").containsExactlyInAnyOrderElementsOf(alerts());
    assertThat(silent).as("alerts with a case where they must stay silent").containsExactlyInAnyOrderElementsOf(alerts());
  }

  @Test
  void everyRuleSelectsStewardsJob() {
    for (Map<String, Object> rule : rules()) {
      assertThat((String) rule.get("expr")).as(rule.get("alert") + " selects job=\"steward\" in every selector")
          .doesNotContainPattern("[a-z_]+\\{(?![^}]*job=\"steward\")[^}]*}")
          .doesNotContainPattern("[a-z_]+\\[")
          .contains("job=\"steward\"");
    }
  }

  @Test
  void chartAndKustomizeCarryTheSameRules() throws IOException {
    Object groups = load(RULES).get("groups");
    Map<String, Object> kustomize = load(KUSTOMIZE_RULES);
    assertThat(map(kustomize, "spec").get("groups")).as(KUSTOMIZE_RULES + " is a copy of " + RULES).isEqualTo(groups);

    Manifests out = StewardChart.template("steward", "steward-system", Map.of("metrics",
        Map.of("prometheusRule", Map.of("enabled", true, "labels", Map.of("release", "prometheus")))));
    Map<String, Object> rule = out.single("PrometheusRule");
    assertThat(rule.get("apiVersion")).isEqualTo("monitoring.coreos.com/v1");
    assertThat(map(rule, "metadata", "labels")).containsEntry("release", "prometheus")
        .containsEntry("app.kubernetes.io/instance", "steward");
    assertThat(map(rule, "spec").get("groups")).isEqualTo(groups);
  }

  @Test
  void serviceMonitorsSetTheJobTheRulesSelect() throws IOException {
    Map<String, Object> relabel = Map.of("targetLabel", "job", "replacement", "steward");
    Map<String, Object> kustomize = load(Path.of("config", "prometheus", "monitor.yaml"));
    assertThat(list(kustomize, "spec", "endpoints")).singleElement()
        .satisfies(endpoint -> assertThat(maps(endpoint.get("relabelings"))).containsExactly(relabel));
    Manifests out = StewardChart.template("other-name", "ops", Map.of("metrics",
        Map.of("serviceMonitor", Map.of("enabled", true))));
    assertThat(list(out.single("ServiceMonitor"), "spec", "endpoints")).singleElement()
        .satisfies(endpoint -> assertThat(maps(endpoint.get("relabelings"))).containsExactly(relabel));
  }

  @Test
  void configDefaultWithPrometheusPutsMonitorAndRulesBesideSteward() throws IOException {
    Path copy = Path.of("target", "kustomize-prometheus").toAbsolutePath();
    DeployTesting.copyTree(Path.of("config"), copy);
    Path kustomization = copy.resolve("default").resolve("kustomization.yaml");
    String text = Files.readString(kustomization);
    assertThat(text).contains("  # - ../prometheus");
    Files.writeString(kustomization, text.replace("  # - ../prometheus", "  - ../prometheus"));

    Manifests out = Manifests.parse(Kubectl.kustomize(copy.resolve("default")).orFail("kubectl kustomize").stdout());
    Map<String, Object> monitor = out.single("ServiceMonitor");
    Map<String, Object> rule = out.single("PrometheusRule");
    assertThat(List.of(monitor, rule)).extracting(Manifests::namespace).containsOnly("steward-system");
    assertThat(map(monitor, "spec", "selector", "matchLabels")).isEqualTo(map(out.single("Service"), "spec", "selector"));
    assertThat(map(rule, "spec").get("groups")).isEqualTo(load(RULES).get("groups"));
  }

  @Test
  void prometheusRuleIsOffByDefault() {
    assertThat(StewardChart.template("steward", "steward-system", Map.of()).ofKind("PrometheusRule")).isEmpty();
  }

  static List<Map<String, Object>> rules() {
    try {
      List<Map<String, Object>> rules = new ArrayList<>();
      for (Map<String, Object> group : maps(load(RULES).get("groups"))) {
        rules.addAll(maps(group.get("rules")));
      }
      return rules;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> alerts() {
    return rules().stream().map(rule -> (String) rule.get("alert")).toList();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> maps(Object list) {
    return (List<Map<String, Object>>) list;
  }

  private static Map<String, Object> load(Path file) throws IOException {
    return new Yaml().load(Files.readString(file));
  }
}
