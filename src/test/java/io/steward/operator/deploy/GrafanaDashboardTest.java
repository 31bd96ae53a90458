package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.steward.operator.support.Promtool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard (charts/steward/files/grafana-dashboard.json): valid JSON that Grafana can
 * load, every query valid PromQL (Prometheus' own parser) over Steward's job and the namespace
 * variable, and a ConfigMap for Grafana's sidecar when asked for. MonitoringIT checks that every
 * metric it names is one a running Steward exports.
 */
class GrafanaDashboardTest {
  static final Path DASHBOARD = StewardChart.CHART.resolve("files").resolve("grafana-dashboard.json");
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.*),\\s*[a-zA-Z_]+\\)");

  @Test
  void isADashboardGrafanaCanLoad() {
    JsonObject dashboard = dashboard();
    assertThat(dashboard.get("uid").getAsString()).isEqualTo("steward-operator");
    assertThat(dashboard.get("title").getAsString()).isEqualTo("Steward");
    assertThat(dashboard.get("schemaVersion").getAsInt()).isPositive();
    Set<Integer> ids = new HashSet<>();
    for (JsonElement element : dashboard.getAsJsonArray("panels")) {
      JsonObject panel = element.getAsJsonObject();
      assertThat(ids.add(panel.get("id").getAsInt())).as("panel id %s is unique", panel.get("id")).isTrue();
      assertThat(panel.getAsJsonObject("gridPos").keySet()).containsExactlyInAnyOrder("x", "y", "w", "h");
      if (!panel.get("type").getAsString().equals("row")) {
        assertThat(panel.getAsJsonArray("targets")).as(panel.get("title") + " has queries").isNotEmpty();
        assertThat(panel.getAsJsonObject("datasource").get("uid").getAsString()).isEqualTo("${datasource}");
      }
    }
  }

  @Test
  void showsWhatTheIssueAsksFor() {
    Set<String> metrics = new TreeSet<>();
    metricNames().forEach(metrics::addAll);
    assertThat(metrics).contains("controller_runtime_reconcile_total", "controller_runtime_reconcile_time_seconds_bucket",
        "workqueue_depth", "workqueue_queue_duration_seconds_bucket", "leader_election_master_status",
        "steward_webapps", "steward_api_requests_seconds_count", "steward_api_requests_seconds_bucket");
    assertThat(expressions()).anySatisfy(e -> assertThat(e).contains("sum by (verb, status)"))
        .anySatisfy(e -> assertThat(e).contains("sum by (result)"))
        .anySatisfy(e -> assertThat(e).contains("max by (phase)"));
  }

  @Test
  void everyQueryIsPromqlOverStewardsJobAndTheNamespaceVariable() {
    List<String> expressions = expressions();
    assertThat(Promtool.metricNames(promql(expressions))).allSatisfy(names -> assertThat(names).isNotEmpty());
    for (String expression : expressions) {
      for (String selector : selectors(expression)) {
        assertThat(selector).as("a selector of %s", expression).contains("job=\"steward\"");
        if (!expression.startsWith("label_values(")) {
          assertThat(selector).as("a selector of %s", expression).contains("namespace=~\"$namespace\"");
        }
      }
    }
  }

  @Test
  void chartShipsItForGrafanasSidecarWhenAsked() throws IOException {
    assertThat(StewardChart.template("steward", "steward-system", Map.of()).ofKind("ConfigMap")).isEmpty();

    Manifests out = StewardChart.template("ops", "operators", Map.of("metrics", Map.of("dashboard",
        Map.of("enabled", true, "namespace", "monitoring", "annotations", Map.of("grafana_folder", "Operators")))));
    Map<String, Object> configMap = out.single("ConfigMap");
    assertThat(Manifests.name(configMap)).isEqualTo("ops-steward-dashboard");
    assertThat(Manifests.namespace(configMap)).isEqualTo("monitoring");
    assertThat(map(configMap, "metadata", "labels")).containsEntry("grafana_dashboard", "1");
    assertThat(map(configMap, "metadata", "annotations")).containsEntry("grafana_folder", "Operators");
    String json = (String) map(configMap, "data").get("steward.json");
    assertThat(JsonParser.parseString(json)).isEqualTo(dashboard());
    assertThat(json).isEqualTo(Files.readString(DASHBOARD).strip());

    Manifests ownLabel = StewardChart.template("steward", "steward-system", Map.of("metrics", Map.of("dashboard",
        Map.of("enabled", true, "sidecarLabel", "dashboards", "sidecarLabelValue", "steward",
            "labels", Map.of("team", "platform")))));
    assertThat(Manifests.namespace(ownLabel.single("ConfigMap"))).isEqualTo("steward-system");
    assertThat(map(ownLabel.single("ConfigMap"), "metadata", "labels")).containsEntry("dashboards", "steward")
        .containsEntry("team", "platform").doesNotContainKey("grafana_dashboard");
  }

  static JsonObject dashboard() {
    try {
      return JsonParser.parseString(Files.readString(DASHBOARD)).getAsJsonObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every query of the dashboard: panel targets and template variables, as Grafana holds them. */
  static List<String> expressions() {
    List<String> result = new ArrayList<>();
    collectTargets(dashboard().getAsJsonArray("panels"), result);
    for (JsonElement variable : dashboard().getAsJsonObject("templating").getAsJsonArray("list")) {
      JsonObject query = variable.getAsJsonObject();
      if (query.get("type").getAsString().equals("query")) {
        result.add(query.getAsJsonObject("query").get("query").getAsString());
      }
    }
    return result;
  }

  /** The metric names each query selects, read by Prometheus' PromQL parser. */
  static List<List<String>> metricNames() {
    return Promtool.metricNames(promql(expressions()));
  }

  private static void collectTargets(JsonArray panels, List<String> into) {
    for (JsonElement element : panels) {
      JsonObject panel = element.getAsJsonObject();
      if (panel.has("targets")) {
        panel.getAsJsonArray("targets").forEach(t -> into.add(t.getAsJsonObject().get("expr").getAsString()));
      }
      if (panel.has("panels")) {
        collectTargets(panel.getAsJsonArray("panels"), into);
      }
    }
  }

  /** Grafana's queries as Prometheus would receive them: its variables replaced by values. */
  private static List<String> promql(List<String> expressions) {
    return expressions.stream().map(e -> {
      Matcher labelValues = LABEL_VALUES.matcher(e);
      String query = labelValues.matches() ? labelValues.group(1) : e;
      return query.replace("$__rate_interval", "5m").replace("$__range", "6h").replace("$__interval", "1m");
    }).toList();
  }

  private static List<String> selectors(String expression) {
    List<String> result = new ArrayList<>();
    Matcher matcher = Pattern.compile("[a-z_]+\\{[^}]*}").matcher(expression);
    while (matcher.find()) {
      result.add(matcher.group());
    }
    assertThat(result).as("selectors of %s", expression).isNotEmpty();
    return result;
  }
}
