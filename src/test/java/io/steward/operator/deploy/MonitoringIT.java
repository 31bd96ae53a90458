package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.Promtool;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The dashboard and the alerts against a running Steward (the built jar, leader-elected, on the local
 * API server with one WebApp Ready and one Stalled on a foreign Deployment): every metric a query or
 * a rule names is on its /actuator/prometheus page, and the new metrics say what happened: WebApps by
 * phase, the stalled one by reason, API requests by verb and resource without a namespace or a name,
 * the build it runs; and client-java's informers keep their start-up INFO lines to themselves.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class MonitoringIT {
  /** Made by Prometheus for every target, not exported by anyone. */
  private static final Set<String> PROMETHEUS_OWN = Set.of("up");

  @Test
  void everyMetricTheDashboardAndTheAlertsNameIsExported(LocalCluster cluster, TestNamespace namespace) throws Exception {
    String ns = namespace.name();
    Crds.installWebAppCrd(cluster.adminClient());
    Map<String, String> theirs = Map.of("app", "theirs");
    new AppsV1Api(cluster.adminClient()).createNamespacedDeployment(ns, new V1Deployment()
        .metadata(new V1ObjectMeta().name("taken").labels(theirs))
        .spec(new V1DeploymentSpec().replicas(1).selector(new V1LabelSelector().matchLabels(theirs))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(theirs))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("theirs:1")))))))
        .execute();
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    webApps.create("hello", WebApps.spec("nginx:1.27", 1, 8080));
    webApps.create("taken", WebApps.spec("nginx:1.27", 1, null));

    try (OperatorProcess operator = OperatorProcess.start(cluster, "monitoring-" + ns, Map.of(
        "steward.namespaces", ns, "steward.leader-election.lease-namespace", ns))) {
      await().atMost(Duration.ofSeconds(90)).until(operator::isReady);
      await().atMost(Duration.ofSeconds(90)).ignoreExceptions().untilAsserted(() -> {
        assertThat(webApps.get("hello").getStatus().phase()).isEqualTo(Phase.Ready);
        assertThat(webApps.get("taken").getStatus().phase()).isEqualTo(Phase.Degraded);
      });
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        Map<String, Double> page = series(operator);
        assertThat(page).containsEntry("leader_election_master_status{name=\"steward-leader\"}", 1.0)
            .containsEntry("steward_webapps{phase=\"Ready\"}", 1.0)
            .containsEntry("steward_webapps{phase=\"Degraded\"}", 1.0)
            .containsEntry("steward_webapps{phase=\"Pending\"}", 0.0)
            .containsEntry("steward_webapps_stalled{reason=\"ResourceConflict\"}", 1.0)
            .containsEntry("steward_leader_handovers_total{name=\"steward-leader\",reason=\"expired\"}", 0.0);
        assertThat(page).hasEntrySatisfying(
            "steward_informer_synced{informer=\"webapps in namespace " + ns + "\"}", v -> assertThat(v).isEqualTo(1.0));
      });

      String body = operator.actuator("prometheus").body();
      Set<String> exported = body.lines().filter(l -> !l.startsWith("#") && !l.isBlank())
          .map(l -> l.substring(0, l.indexOf(l.contains("{") ? '{' : ' '))).collect(Collectors.toCollection(TreeSet::new));

      List<String> queries = new ArrayList<>(GrafanaDashboardTest.expressions());
      List<List<String>> names = new ArrayList<>(GrafanaDashboardTest.metricNames());
      List<String> expressions = PrometheusRulesTest.rules().stream().map(r -> (String) r.get("expr")).toList();
      queries.addAll(expressions);
      names.addAll(Promtool.metricNames(expressions));
      Map<String, List<String>> missing = new TreeMap<>();
      for (int i = 0; i < queries.size(); i++) {
        for (String name : names.get(i)) {
          if (!exported.contains(name) && !PROMETHEUS_OWN.contains(name)) {
            missing.computeIfAbsent(name, n -> new ArrayList<>()).add(queries.get(i));
          }
        }
      }
      assertThat(missing).as("metrics the dashboard or the alerts name that Steward does not export").isEmpty();

      // Which build runs: the version and the commit this build was made from.
      Properties git = new Properties();
      try (var in = Files.newInputStream(Path.of("target", "classes", "git.properties"))) {
        git.load(in);
      }
      assertThat(series(operator)).containsEntry("steward_build_info{revision=\""
          + git.getProperty("git.commit.id.abbrev") + "\",version=\"0.1.0-SNAPSHOT\"}", 1.0);
      // The same build on /actuator/info: Maven's build-info and the commit.
      JsonObject info = JsonParser.parseString(operator.actuator("info").body()).getAsJsonObject();
      assertThat(info.getAsJsonObject("build").get("version").getAsString()).isEqualTo("0.1.0-SNAPSHOT");
      assertThat(info.getAsJsonObject("build").get("artifact").getAsString()).isEqualTo("steward");
      assertThat(info.getAsJsonObject("git").getAsJsonObject("commit").get("id").getAsString())
          .isEqualTo(git.getProperty("git.commit.id.abbrev"));
      assertThat(Files.readString(operator.log())).as("client-java's start-up noise")
          .doesNotContain("resync skipped due to 0 full resync period");

      // API requests by verb and resource; the series name no namespace and no object. The Lease is
      // first renewed (an update) a retry period after the replica created it and began to lead.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        List<String> requests = operator.actuator("prometheus").body().lines()
            .filter(l -> l.startsWith("steward_api_requests_seconds_count{")).toList();
        assertThat(requests).anySatisfy(l -> assertThat(l).contains("resource=\"leases.coordination.k8s.io\"", "verb=\"list\""))
            .anySatisfy(l -> assertThat(l).contains("resource=\"webapps.steward.io\"", "verb=\"watch\""))
            .anySatisfy(l -> assertThat(l).contains("resource=\"webapps.steward.io/status\"", "verb=\"patch\"", "status=\"200\""))
            .anySatisfy(l -> assertThat(l).contains("resource=\"deployments.apps\"", "verb=\"create\"", "status=\"201\""))
            .anySatisfy(l -> assertThat(l).contains("resource=\"leases.coordination.k8s.io\"", "verb=\"update\""))
            .allSatisfy(l -> assertThat(l).doesNotContain(ns).doesNotContain("hello").doesNotContain("taken"));
      });
    }
  }

  /** Every series of the page (name and labels as printed) with its value. */
  private static Map<String, Double> series(OperatorProcess operator) {
    Map<String, Double> result = new TreeMap<>();
    operator.actuator("prometheus").body().lines().filter(l -> !l.startsWith("#") && !l.isBlank())
        .forEach(l -> result.put(l.substring(0, l.lastIndexOf(' ')), Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))));
    return result;
  }
}
