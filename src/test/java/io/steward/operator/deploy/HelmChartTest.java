package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;
import static io.steward.operator.deploy.Manifests.value;
import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The Helm chart, linted and rendered offline (helm 3.21 embedded by helm-java): what it installs
 * for the default values and for watchNamespaces, and which values its schema refuses. The
 * integration tests (HelmChartIT, HelmChartWatchNamespacesIT) put the same output on a real API server.
 */
class HelmChartTest {
  private static final String NS = "steward-system";

  @Test
  void lintsCleanWithDefaultValues() {
    LintResult result = StewardChart.lint();
    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages()).allSatisfy(m -> assertThat(m).startsWith("[INFO]"));
  }

  @Test
  void lintsCleanInWatchNamespacesMode() {
    LintResult result = StewardChart.lint(Map.of("watchNamespaces", List.of("team-a", "team-b")));
    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages()).allSatisfy(m -> assertThat(m).startsWith("[INFO]"));
  }

  @Test
  void defaultsInstallTwoLeaderElectedReplicasWithClusterWideLeastPrivilege() throws Exception {
    Manifests out = StewardChart.template("steward", NS, Map.of());

    assertThat(out.kinds()).containsExactlyInAnyOrder("ServiceAccount", "ClusterRole", "ClusterRoleBinding",
        "Role", "RoleBinding", "Service", "Deployment", "PodDisruptionBudget",
        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding", "FlowSchema", "PriorityLevelConfiguration", "ClusterRole", "ClusterRole",
        "ClusterRole");
    // Cluster-wide: the manager rules, bound to the chart's ServiceAccount, and nothing more.
    Map<String, Object> clusterRole = managerRole(out, "steward");
    assertThat(RbacRules.flatten(clusterRole)).containsExactlyInAnyOrderElementsOf(RbacRules.MANAGER);
    Map<String, Object> binding = out.single("ClusterRoleBinding");
    assertThat(map(binding, "roleRef")).containsEntry("kind", "ClusterRole")
        .containsEntry("name", Manifests.name(clusterRole));
    assertThat(list(binding, "subjects")).singleElement().isEqualTo(
        Map.of("kind", "ServiceAccount", "name", "steward", "namespace", NS));
    // The Lease: only in the release namespace, only the named Lease beyond create.
    Map<String, Object> leaseRole = out.single("Role");
    assertThat(Manifests.namespace(leaseRole)).isEqualTo(NS);
    assertThat(RbacRules.flatten(leaseRole)).containsExactlyInAnyOrderElementsOf(RbacRules.leaderElection("steward-leader"));
    assertThat(list(out.single("RoleBinding"), "subjects")).singleElement().isEqualTo(
        Map.of("kind", "ServiceAccount", "name", "steward", "namespace", NS));
    assertNoWildcardsOrSecrets(out);

    Map<String, Object> serviceAccount = out.single("ServiceAccount");
    assertThat(serviceAccount.get("automountServiceAccountToken")).isEqualTo(false);

    Map<String, Object> deployment = out.single("Deployment");
    assertThat(value(deployment, "spec", "replicas")).isEqualTo(2);
    Map<String, Object> pod = map(deployment, "spec", "template", "spec");
    assertThat(pod.get("serviceAccountName")).isEqualTo("steward");
    Map<String, Object> container = single(list(pod, "containers"));
    Map<String, Object> env = env(container);
    assertThat(env.get("POD_NAME")).isEqualTo(Map.of("fieldRef", Map.of("fieldPath", "metadata.name")));
    assertThat(env.get("POD_NAMESPACE")).isEqualTo(Map.of("fieldRef", Map.of("fieldPath", "metadata.namespace")));
    assertThat(env).containsEntry("STEWARD_LEADERELECTION_ENABLED", "true")
        .containsEntry("STEWARD_LEADERELECTION_LEASENAME", "steward-leader")
        .containsEntry("SERVER_PORT", "8081")
        .doesNotContainKey("STEWARD_NAMESPACES");
    // The same JVM options as the image and config/manager, so the three run Steward alike.
    assertThat(env.get("JAVA_TOOL_OPTIONS")).isEqualTo(ContainerImage.read().javaToolOptions())
        .isEqualTo(HelmChartTest.env(single(list(map(Manifests.parse(Files.readString(Path.of("config", "manager", "manager.yaml")))
            .single("Deployment"), "spec", "template", "spec"), "containers"))).get("JAVA_TOOL_OPTIONS"));
    assertThat((String) env.get("JAVA_TOOL_OPTIONS")).contains("-XX:MaxRAMPercentage=50", "-XX:+ExitOnOutOfMemoryError",
        "-XX:TieredStopAtLevel=1", "-XX:CompileThresholdScaling=0.5", "-XX:MaxNewSize=24m", "-XX:ParallelGCThreads=2", "-XX:ConcGCThreads=1", "-XX:CICompilerCount=2");

    // Probes on the management port, on Actuator's liveness and readiness groups.
    assertThat(list(container, "ports")).singleElement().satisfies(p -> assertThat(p)
        .containsEntry("name", "management").containsEntry("containerPort", 8081));
    assertThat(value(container, "livenessProbe", "httpGet")).isEqualTo(Map.of("path", "/actuator/health/liveness", "port", "management"));
    assertThat(value(container, "readinessProbe", "httpGet")).isEqualTo(Map.of("path", "/actuator/health/readiness", "port", "management"));
    assertThat(value(container, "startupProbe", "httpGet")).isEqualTo(Map.of("path", "/actuator/health/liveness", "port", "management"));

    // Restricted security context, read-only root with a writable /tmp, a short-lived token only.
    assertThat(map(pod, "securityContext")).containsEntry("runAsNonRoot", true).containsEntry("runAsUser", 65532)
        .containsEntry("seccompProfile", Map.of("type", "RuntimeDefault"));
    assertThat(map(container, "securityContext")).containsEntry("allowPrivilegeEscalation", false)
        .containsEntry("readOnlyRootFilesystem", true).containsEntry("capabilities", Map.of("drop", List.of("ALL")));
    assertThat(pod.get("automountServiceAccountToken")).isEqualTo(false);
    assertThat(list(container, "volumeMounts")).extracting(m -> m.get("mountPath"))
        .containsExactlyInAnyOrder("/tmp", "/var/run/secrets/kubernetes.io/serviceaccount");
    Map<String, Object> tokenVolume = volume(pod, "kube-api-access");
    assertThat(value(tokenVolume, "projected", "sources", 0, "serviceAccountToken", "expirationSeconds")).isEqualTo(3600);
    assertThat(value(volume(pod, "tmp"), "emptyDir")).isNotNull();

    // Memory request = limit, and the heap takes half of it.
    assertThat(map(container, "resources")).isEqualTo(Map.of(
        "requests", Map.of("cpu", "100m", "memory", "512Mi"), "limits", Map.of("memory", "512Mi")));

    Map<String, Object> metrics = out.single("Service");
    assertThat(list(metrics, "spec", "ports")).singleElement().satisfies(p -> assertThat(p)
        .containsEntry("name", "metrics").containsEntry("port", 8081).containsEntry("targetPort", "management"));
    assertThat(map(metrics, "spec", "selector")).isEqualTo(map(deployment, "spec", "selector", "matchLabels"));
    Map<String, Object> pdb = out.single("PodDisruptionBudget");
    assertThat(value(pdb, "spec", "maxUnavailable")).isEqualTo(1);
    assertThat(map(pdb, "spec", "selector", "matchLabels")).isEqualTo(map(deployment, "spec", "selector", "matchLabels"));
  }

  @Test
  void watchNamespacesSwitchesToARoleAndBindingPerNamespaceAndTellsTheOperator() {
    Manifests out = StewardChart.template("steward", NS, Map.of("watchNamespaces", List.of("team-a", "team-b")));

    // Nothing cluster-wide for Steward: the only ClusterRoles are the aggregated ones for users.
    assertThat(out.ofKind("ClusterRole")).extracting(Manifests::name)
        .containsExactlyInAnyOrder("steward-webapp-viewer", "steward-webapp-editor", "steward-webapp-admin");
    assertThat(out.ofKind("ClusterRoleBinding")).isEmpty();
    for (String watched : List.of("team-a", "team-b")) {
      Map<String, Object> role = out.get("Role", watched, "steward-manager");
      assertThat(RbacRules.flatten(role)).containsExactlyInAnyOrderElementsOf(RbacRules.MANAGER);
      Map<String, Object> binding = out.get("RoleBinding", watched, "steward-manager");
      assertThat(map(binding, "roleRef")).containsEntry("kind", "Role").containsEntry("name", "steward-manager");
      assertThat(list(binding, "subjects")).singleElement().isEqualTo(
          Map.of("kind", "ServiceAccount", "name", "steward", "namespace", NS));
    }
    assertThat(RbacRules.flatten(out.get("Role", NS, "steward-leader-election")))
        .containsExactlyInAnyOrderElementsOf(RbacRules.leaderElection("steward-leader"));
    assertThat(out.ofKind("Role")).extracting(Manifests::namespace).containsExactlyInAnyOrder("team-a", "team-b", NS);
    assertNoWildcardsOrSecrets(out);

    Map<String, Object> container = single(list(out.single("Deployment"), "spec", "template", "spec", "containers"));
    assertThat(env(container)).containsEntry("STEWARD_NAMESPACES", "team-a,team-b");
  }

  @Test
  void namesFollowTheReleaseAndTheLeaseNameCanBeSet() {
    Manifests out = StewardChart.template("ops", "operators", Map.of("leaderElection", Map.of("leaseName", "my-lease")));
    assertThat(Manifests.name(out.single("Deployment"))).isEqualTo("ops-steward");
    assertThat(out.ofKind("ClusterRole")).extracting(Manifests::name).contains("ops-steward-manager");
    assertThat(RbacRules.flatten(out.single("Role"))).containsExactlyInAnyOrderElementsOf(RbacRules.leaderElection("my-lease"));
    Map<String, Object> container = single(list(out.single("Deployment"), "spec", "template", "spec", "containers"));
    assertThat(env(container)).containsEntry("STEWARD_LEADERELECTION_LEASENAME", "my-lease");
  }

  @Test
  void serviceMonitorIsOptionalAndScrapesActuatorPrometheus() {
    Manifests out = StewardChart.template("steward", NS, Map.of("metrics",
        Map.of("serviceMonitor", Map.of("enabled", true, "labels", Map.of("release", "prometheus")))));
    Map<String, Object> monitor = out.single("ServiceMonitor");
    assertThat(monitor.get("apiVersion")).isEqualTo("monitoring.coreos.com/v1");
    assertThat(map(monitor, "metadata", "labels")).containsEntry("release", "prometheus");
    assertThat(list(monitor, "spec", "endpoints")).singleElement().satisfies(e -> assertThat(e)
        .containsEntry("port", "metrics").containsEntry("path", "/actuator/prometheus"));
    assertThat(map(monitor, "spec", "selector", "matchLabels"))
        .isEqualTo(map(out.single("Service"), "spec", "selector"));
  }

  @Test
  void imageDefaultsToTheAppVersionAndADigestWins() throws Exception {
    Map<String, Object> chart = new Yaml().load(Files.readString(StewardChart.CHART.resolve("Chart.yaml")));
    assertThat(image(StewardChart.template("steward", NS, Map.of())))
        .isEqualTo("ghcr.io/steward-io/steward:" + chart.get("appVersion"));
    String digest = "sha256:" + "a".repeat(64);
    assertThat(image(StewardChart.template("steward", NS, Map.of("image", Map.of("digest", digest)))))
        .isEqualTo("ghcr.io/steward-io/steward@" + digest);
  }

  @Test
  void appVersionMatchesTheMavenVersion() throws Exception {
    Map<String, Object> chart = new Yaml().load(Files.readString(StewardChart.CHART.resolve("Chart.yaml")));
    String pom = Files.readString(Path.of("pom.xml"));
    String mavenVersion = pom.replaceAll("(?s).*?<artifactId>steward</artifactId>\\s*<version>([^<]+)</version>.*", "$1");
    assertThat(mavenVersion.replace("-SNAPSHOT", "")).as("pom.xml version without -SNAPSHOT")
        .isEqualTo(chart.get("appVersion"));
  }

  @Test
  void fencePolicyLetsOnlyTheLeaseHoldersPodWriteAsStewardsServiceAccount() {
    Manifests out = StewardChart.template("ops", "operators", Map.of("leaderElection", Map.of("leaseName", "my-lease"),
        "serviceAccount", Map.of("name", "steward-sa")));
    Map<String, Object> policy = out.single("ValidatingAdmissionPolicy", "leader-fence");
    assertThat(Manifests.name(policy)).isEqualTo("ops-steward-leader-fence");
    assertThat(map(policy, "spec", "paramKind")).isEqualTo(Map.of("apiVersion", "coordination.k8s.io/v1", "kind", "Lease"));
    assertThat(value(policy, "spec", "failurePolicy")).isEqualTo("Ignore");
    assertThat(list(policy, "spec", "matchConstraints", "resourceRules"))
        .extracting(r -> r.get("apiGroups") + " " + r.get("resources") + " " + r.get("operations"))
        .containsExactlyInAnyOrder("[steward.io] [webapps, webapps/status] [CREATE, UPDATE, DELETE]",
            "[apps] [deployments] [CREATE, UPDATE, DELETE]", "[] [services] [CREATE, UPDATE, DELETE]");
    // Only Steward's own ServiceAccount is judged; nobody else's writes are touched.
    assertThat(list(policy, "spec", "matchConditions")).singleElement().satisfies(c -> assertThat(c.get("expression"))
        .isEqualTo("request.userInfo.username.split(':') == ['system', 'serviceaccount', 'operators', 'steward-sa']"));
    assertThat(list(policy, "spec", "validations")).singleElement().satisfies(v -> {
      assertThat(v).containsEntry("reason", "Forbidden");
      assertThat((String) v.get("expression")).contains("variables.pod == variables.holder");
    });
    assertThat(list(policy, "spec", "variables")).extracting(v -> (String) v.get("expression"))
        .anySatisfy(e -> assertThat(e).contains("request.userInfo.extra['authentication.kubernetes.io/pod-name']"))
        .anySatisfy(e -> assertThat(e).contains("params.spec.holderIdentity"));

    Map<String, Object> binding = out.single("ValidatingAdmissionPolicyBinding", "leader-fence");
    assertThat(value(binding, "spec", "policyName")).isEqualTo(Manifests.name(policy));
    assertThat(value(binding, "spec", "validationActions")).isEqualTo(List.of("Deny"));
    assertThat(map(binding, "spec", "paramRef")).isEqualTo(Map.of("name", "my-lease", "namespace", "operators",
        "parameterNotFoundAction", "Allow"));
    // The identity the policy compares with the Lease holder is the pod name, from the downward API.
    Map<String, Object> container = single(list(out.single("Deployment"), "spec", "template", "spec", "containers"));
    assertThat(env(container).get("POD_NAME")).isEqualTo(Map.of("fieldRef", Map.of("fieldPath", "metadata.name")));
    assertThat(env(container)).doesNotContainKey("STEWARD_LEADERELECTION_IDENTITY");
  }

  @Test
  void shardingFencesEachWriteByTheLeaseOfItsBucketAndGrantsWhatItNeeds() {
    Manifests out = StewardChart.template("ops", "operators", Map.of("sharding", Map.of("enabled", true, "buckets", 16),
        "serviceAccount", Map.of("name", "steward-sa")));
    assertThat(out.where(o -> Manifests.name(o).contains("leader-fence"))).as("no leader Lease to fence by").isEmpty();
    Map<String, Object> policy = out.single("ValidatingAdmissionPolicy", "bucket-fence");
    assertThat(value(policy, "spec", "failurePolicy")).isEqualTo("Ignore");
    assertThat(list(policy, "spec", "matchConditions")).singleElement().satisfies(c -> assertThat(c.get("expression"))
        .isEqualTo("request.userInfo.username.split(':') == ['system', 'serviceaccount', 'operators', 'steward-sa']"));
    assertThat(list(policy, "spec", "validations")).singleElement().satisfies(v -> assertThat((String) v.get("expression"))
        .contains("variables.objectBucket != variables.leaseBucket", "variables.pod == variables.holder"));
    assertThat(list(policy, "spec", "variables")).extracting(v -> (String) v.get("expression"))
        .anySatisfy(e -> assertThat(e).contains("oldObject"))
        .anySatisfy(e -> assertThat(e).contains("variables.subject.metadata.labels['steward.io/bucket']"));
    Map<String, Object> binding = out.single("ValidatingAdmissionPolicyBinding", "bucket-fence");
    assertThat(map(binding, "spec", "paramRef")).isEqualTo(Map.of("namespace", "operators",
        "selector", Map.of("matchLabels", Map.of("steward.io/shard-lease", "bucket")), "parameterNotFoundAction", "Allow"));

    Map<String, Object> container = single(list(out.single("Deployment"), "spec", "template", "spec", "containers"));
    assertThat(env(container).get("STEWARD_SHARDING_ENABLED")).isEqualTo("true");
    assertThat(env(container).get("STEWARD_SHARDING_BUCKETS")).isEqualTo("16");
    Map<String, Object> leases = out.single("Role", "leader-election");
    assertThat(list(leases, "rules")).anySatisfy(rule -> {
      assertThat(rule).doesNotContainKey("resourceNames");
      assertThat(String.valueOf(rule.get("verbs"))).contains("update", "list");
    });
    assertThat(list(out.single("ClusterRole", "manager"), "rules"))
        .anySatisfy(rule -> assertThat(rule.get("resources") + " " + rule.get("verbs"))
            .isEqualTo("[webapps] [get, list, watch, patch]"));

    Manifests unsharded = StewardChart.template("ops", "operators", Map.of());
    assertThat(unsharded.where(o -> Manifests.name(o).contains("bucket-fence"))).isEmpty();
    assertThat(list(unsharded.single("ClusterRole", "manager"), "rules"))
        .anySatisfy(rule -> assertThat(rule.get("resources") + " " + rule.get("verbs")).isEqualTo("[webapps] [get, list, watch]"));
  }

  @Test
  void fenceAndLeaseFlowControlNeedLeaderElectionAndCanBeTurnedOff() {
    Manifests single = StewardChart.template("steward", NS, Map.of("replicaCount", 1, "leaderElection", Map.of("enabled", false)));
    assertThat(single.kinds()).doesNotContain("FlowSchema", "PriorityLevelConfiguration");
    assertThat(single.where(o -> Manifests.name(o).contains("leader-fence"))).isEmpty();
    Manifests off = StewardChart.template("steward", NS, Map.of("fencing", Map.of("enabled", false),
        "flowControl", Map.of("enabled", false), "userRoles", Map.of("enabled", false)));
    assertThat(off.kinds()).doesNotContain("FlowSchema", "PriorityLevelConfiguration");
    assertThat(off.where(o -> Manifests.name(o).contains("leader-fence"))).isEmpty();
    assertThat(off.ofKind("ClusterRole")).extracting(Manifests::name).containsExactly("steward-manager");
  }

  @Test
  void leaseRequestsOfStewardsServiceAccountHaveAPriorityLevelOfTheirOwn() {
    Manifests out = StewardChart.template("ops", "operators", Map.of("serviceAccount", Map.of("name", "steward-sa"),
        "flowControl", Map.of("nominalConcurrencyShares", 7)));
    Map<String, Object> level = out.single("PriorityLevelConfiguration");
    assertThat(Manifests.name(level)).isEqualTo("ops-steward-leader-election");
    assertThat(value(level, "spec", "type")).isEqualTo("Limited");
    assertThat(value(level, "spec", "limited", "nominalConcurrencyShares")).isEqualTo(7);
    assertThat(value(level, "spec", "limited", "lendablePercent")).isEqualTo(0);
    assertThat(value(level, "spec", "limited", "limitResponse", "type")).isEqualTo("Queue");

    Map<String, Object> schema = out.single("FlowSchema");
    assertThat(value(schema, "spec", "priorityLevelConfiguration", "name")).isEqualTo(Manifests.name(level));
    assertThat(value(schema, "spec", "matchingPrecedence")).isEqualTo(200);
    assertThat(list(schema, "spec", "rules")).singleElement().satisfies(rule -> {
      assertThat(list(rule, "subjects")).singleElement().isEqualTo(Map.of("kind", "ServiceAccount",
          "serviceAccount", Map.of("name", "steward-sa", "namespace", "operators")));
      assertThat(list(rule, "resourceRules")).singleElement().isEqualTo(Map.of("apiGroups", List.of("coordination.k8s.io"),
          "resources", List.of("leases"), "verbs", List.of("get", "create", "update", "list", "watch"),
          "namespaces", List.of("operators")));
      assertThat(rule).doesNotContainKey("nonResourceRules");
    });
  }

  @Test
  void userRolesAggregateIntoViewEditAndAdminAndLeaveTheStatusToSteward() {
    Manifests out = StewardChart.template("steward", NS, Map.of());
    Map<String, Set<String>> expected = Map.of(
        "steward-webapp-viewer", Set.of("view"), "steward-webapp-editor", Set.of("edit"),
        "steward-webapp-admin", Set.of("admin"));
    Set<String> read = Set.of("steward.io/webapps get", "steward.io/webapps list", "steward.io/webapps watch",
        "steward.io/webapps/status get", "steward.io/webapps/status list", "steward.io/webapps/status watch",
        "steward.io/webapps/scale get", "steward.io/webapps/scale list", "steward.io/webapps/scale watch");
    Set<String> write = Set.of("steward.io/webapps create", "steward.io/webapps update", "steward.io/webapps patch",
        "steward.io/webapps delete", "steward.io/webapps deletecollection",
        "steward.io/webapps/scale update", "steward.io/webapps/scale patch");
    expected.forEach((name, aggregatesTo) -> {
      Map<String, Object> role = out.get("ClusterRole", null, name);
      Map<String, Object> labels = map(role, "metadata", "labels");
      assertThat(labels.keySet().stream().filter(k -> k.startsWith("rbac.authorization.k8s.io/aggregate-to-"))
          .map(k -> k.substring("rbac.authorization.k8s.io/aggregate-to-".length())).collect(Collectors.toSet()))
          .as("aggregation labels of %s", name).isEqualTo(aggregatesTo);
      assertThat(labels.get("rbac.authorization.k8s.io/aggregate-to-" + aggregatesTo.iterator().next())).isEqualTo("true");
      Set<String> rules = RbacRules.flatten(role);
      assertThat(rules).as(name).containsAll(read).noneMatch(p -> p.startsWith("steward.io/webapps/status ")
          && !p.endsWith(" get") && !p.endsWith(" list") && !p.endsWith(" watch"));
      if (name.endsWith("viewer")) {
        assertThat(rules).as(name).isEqualTo(read);
      } else {
        assertThat(rules).as(name).isEqualTo(union(read, write));
      }
    });
  }

  static List<Map<String, Object>> valueCombinations() {
    return List.of(
        Map.of("fencing", Map.of("enabled", false)),
        Map.of("flowControl", Map.of("enabled", false)),
        Map.of("userRoles", Map.of("enabled", false)),
        Map.of("replicaCount", 1, "leaderElection", Map.of("enabled", false, "leaseName", "", "leaseDuration", "15s",
            "renewDeadline", "10s", "retryPeriod", "2s")),
        Map.of("flowControl", Map.of("enabled", true, "nominalConcurrencyShares", 20, "matchingPrecedence", 500)),
        Map.of("metrics", monitoring(true, true, true)),
        Map.of("metrics", monitoring(false, true, false)),
        Map.of("metrics", Map.of("service", Map.of("enabled", false), "serviceMonitor", Map.of("enabled", false),
            "prometheusRule", Map.of("enabled", false), "dashboard", Map.of("enabled", true, "namespace", "monitoring",
                "sidecarLabel", "dashboards", "sidecarLabelValue", "steward", "labels", Map.of("team", "platform"),
                "annotations", Map.of("grafana_folder", "Operators")))));
  }

  /** Every value of metrics, with the ServiceMonitor, the PrometheusRule and the dashboard on or off. */
  private static Map<String, Object> monitoring(boolean serviceMonitor, boolean prometheusRule, boolean dashboard) {
    return Map.of(
        "service", Map.of("enabled", true, "annotations", Map.of()),
        "serviceMonitor", Map.of("enabled", serviceMonitor, "interval", "30s", "scrapeTimeout", "10s",
            "labels", Map.of("release", "prometheus")),
        "prometheusRule", Map.of("enabled", prometheusRule, "labels", Map.of("release", "prometheus")),
        "dashboard", Map.of("enabled", dashboard, "namespace", "", "sidecarLabel", "grafana_dashboard",
            "sidecarLabelValue", "1", "labels", Map.of(), "annotations", Map.of()));
  }

  @Test
  void monitoringObjectsAddNoPodsAndLeaveTheRestrictedDeploymentAlone() {
    Manifests defaults = StewardChart.template("steward", NS, Map.of());
    Manifests all = StewardChart.template("steward", NS, Map.of("metrics", monitoring(true, true, true)));
    List<String> added = new java.util.ArrayList<>(all.kinds());
    defaults.kinds().forEach(added::remove);
    assertThat(added).containsExactlyInAnyOrder("ServiceMonitor", "PrometheusRule", "ConfigMap");
    assertThat(all.single("Deployment")).isEqualTo(defaults.single("Deployment"));
    assertThat(all.where(o -> !List.of("Deployment").contains(o.get("kind"))))
        .noneSatisfy(o -> assertThat(map(o, "spec")).containsKey("template"));
  }

  @ParameterizedTest
  @MethodSource("valueCombinations")
  void lintsCleanForEachNewValue(Map<String, Object> values) {
    LintResult result = StewardChart.lint(values);
    assertThat(result.isFailed()).as("helm lint --strict with %s: %s", values, result.getMessages()).isFalse();
    assertThat(result.getMessages()).allSatisfy(m -> assertThat(m).startsWith("[INFO]"));
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new java.util.TreeSet<>(a);
    all.addAll(b);
    return all;
  }

  static List<Arguments> badValues() {
    return List.of(
        Arguments.of(Map.of("replicaCount", 0), List.of("/replicaCount", "minimum: got 0, want 1")),
        Arguments.of(Map.of("watchNamespaces", List.of("Team_A")), List.of("/watchNamespaces/0", "'Team_A' does not match pattern")),
        Arguments.of(Map.of("watchNamespaces", "team-a"), List.of("/watchNamespaces", "got string, want array")),
        Arguments.of(Map.of("watchNamespaces", List.of("a", "a")), List.of("/watchNamespaces", "items at 0 and 1 are equal")),
        Arguments.of(Map.of("leaderElection", Map.of("enabled", "yes")), List.of("/leaderElection/enabled", "got string, want boolean")),
        Arguments.of(Map.of("leaderElection", Map.of("leaseDuration", "15 seconds")), List.of("/leaderElection/leaseDuration", "does not match pattern")),
        Arguments.of(Map.of("image", Map.of("pullPolicy", "Sometimes")), List.of("/image/pullPolicy", "value must be one of 'Always', 'IfNotPresent', 'Never'")),
        Arguments.of(Map.of("jvm", Map.of("maxRAMPercentage", 95)), List.of("/jvm/maxRAMPercentage", "maximum: got 95, want 80")),
        Arguments.of(Map.of("resources", Map.of("limits", Map.of("memory", "lots"))), List.of("/resources/limits/memory", "does not match pattern")),
        Arguments.of(Map.of("replicas", 3), List.of("additional properties 'replicas' not allowed")),
        Arguments.of(Map.of("serviceAccount", Map.of("tokenExpirationSeconds", 60)), List.of("/serviceAccount/tokenExpirationSeconds", "minimum: got 60, want 600")),
        Arguments.of(Map.of("fencing", Map.of("enabled", "yes")), List.of("/fencing/enabled", "got string, want boolean")),
        Arguments.of(Map.of("flowControl", Map.of("nominalConcurrencyShares", 0)), List.of("/flowControl/nominalConcurrencyShares", "minimum: got 0, want 1")),
        Arguments.of(Map.of("flowControl", Map.of("matchingPrecedence", 1)), List.of("/flowControl/matchingPrecedence", "minimum: got 1, want 2")),
        Arguments.of(Map.of("userRoles", Map.of("create", true)), List.of("/userRoles", "additional properties 'create' not allowed")),
        Arguments.of(Map.of("metrics", Map.of("prometheusRule", Map.of("enabled", "yes"))), List.of("/metrics/prometheusRule/enabled", "got string, want boolean")),
        Arguments.of(Map.of("metrics", Map.of("dashboard", Map.of("namespace", "Monitoring"))), List.of("/metrics/dashboard/namespace", "does not match pattern")),
        Arguments.of(Map.of("metrics", Map.of("dashboard", Map.of("sidecarLabel", ""))), List.of("/metrics/dashboard/sidecarLabel", "minLength")),
        Arguments.of(Map.of("metrics", Map.of("dashboard", Map.of("label", "grafana_dashboard"))), List.of("additional properties 'label' not allowed")),
        // the WebApp limits policy (AdmissionPolicyChartTest)
        Arguments.of(Map.of("admission", Map.of("serviceTypes", List.of("ExternalName"))), List.of("/admission/serviceTypes/0", "value must be one of")),
        Arguments.of(Map.of("admission", Map.of("serviceTypes", List.of())), List.of("/admission/serviceTypes", "minItems")),
        Arguments.of(Map.of("admission", Map.of("serviceTypes", List.of("NodePort", "NodePort"))), List.of("/admission/serviceTypes", "items at 0 and 1 are equal")),
        Arguments.of(Map.of("admission", Map.of("maxReplicas", 0)), List.of("/admission/maxReplicas", "minimum: got 0, want 1")),
        Arguments.of(Map.of("admission", Map.of("maxReplicas", 1001)), List.of("/admission/maxReplicas", "maximum: got 1,001, want 1,000")),
        Arguments.of(Map.of("admission", Map.of("maxReplicas", "3")), List.of("/admission/maxReplicas", "got string, want integer")),
        Arguments.of(Map.of("admission", Map.of("serviceType", List.of("ClusterIP"))), List.of("additional properties 'serviceType' not allowed")),
        // the NetworkPolicy, the helm test pod and tracing (ChartOperationsTest)
        Arguments.of(Map.of("networkPolicy", Map.of("enabled", "yes")), List.of("/networkPolicy/enabled", "got string, want boolean")),
        Arguments.of(Map.of("networkPolicy", Map.of("kubeletCIDRs", List.of("10.0.0.0"))), List.of("/networkPolicy/kubeletCIDRs/0", "does not match pattern")),
        Arguments.of(Map.of("networkPolicy", Map.of("kubeletCIDRs", "10.0.0.0/8")), List.of("/networkPolicy/kubeletCIDRs", "got string, want array")),
        Arguments.of(Map.of("networkPolicy", Map.of("prometheus", Map.of("podSelector", Map.of("matchLabel", Map.of("a", "b"))))),
            List.of("/networkPolicy/prometheus/podSelector", "additional properties 'matchLabel' not allowed")),
        Arguments.of(Map.of("networkPolicy", Map.of("prometheus", Map.of("namespaceSelector", Map.of("matchExpressions",
            List.of(Map.of("key", "team", "operator", "Equals")))))), List.of("/networkPolicy/prometheus/namespaceSelector/matchExpressions/0/operator", "value must be one of")),
        Arguments.of(Map.of("tests", Map.of("image", "")), List.of("/tests/image", "minLength")),
        Arguments.of(Map.of("tests", Map.of("enable", true)), List.of("additional properties 'enable' not allowed")),
        Arguments.of(Map.of("tracing", Map.of("otlpEndpoint", "collector:4318")), List.of("/tracing/otlpEndpoint", "does not match pattern")),
        Arguments.of(Map.of("tracing", Map.of("samplingProbability", 2)), List.of("/tracing/samplingProbability", "maximum")));
  }

  @ParameterizedTest
  @MethodSource("badValues")
  void schemaRefusesBadValuesNamingTheValue(Map<String, Object> values, List<String> expected) {
    String error = StewardChart.templateError("steward", NS, values);
    assertThat(error).as("helm template with %s", values).isNotNull()
        .contains("values don't meet the specifications of the schema");
    assertThat(error).contains(expected);
  }

  @Test
  void severalReplicasWithoutLeaderElectionAreRefusedWithAnExplanation() {
    String error = StewardChart.templateError("steward", NS, Map.of("replicaCount", 3,
        "leaderElection", Map.of("enabled", false)));
    assertThat(error).contains("replicaCount is 3 but leaderElection.enabled is false")
        .contains("Enable leader election or set replicaCount: 1");
    // One replica without leader election is a supported set-up, and then no Lease permissions exist.
    Manifests single = StewardChart.template("steward", NS, Map.of("replicaCount", 1, "leaderElection", Map.of("enabled", false)));
    assertThat(single.ofKind("Role")).isEmpty();
    assertThat(env(single(list(single.single("Deployment"), "spec", "template", "spec", "containers"))))
        .containsEntry("STEWARD_LEADERELECTION_ENABLED", "false");
  }

  @Test
  void kustomizeRbacGrantsExactlyWhatTheChartGrants() throws Exception {
    Manifests chart = StewardChart.template("steward", NS, Map.of());
    Map<String, Object> kustomizeRole = new Yaml().load(Files.readString(Path.of("config", "rbac", "role.yaml")));
    Map<String, Object> kustomizeLeaseRole = new Yaml().load(Files.readString(Path.of("config", "rbac", "leader_election_role.yaml")));
    assertThat(RbacRules.flatten(kustomizeRole)).isEqualTo(RbacRules.flatten(managerRole(chart, "steward")));
    // Same rules; the kustomize install uses the operator's default Lease name.
    assertThat(RbacRules.flatten(kustomizeLeaseRole)).containsExactlyInAnyOrderElementsOf(RbacRules.leaderElection("steward-leader"));
  }

  private static void assertNoWildcardsOrSecrets(Manifests out) {
    for (Map<String, Object> role : out.where(o -> List.of("Role", "ClusterRole").contains(o.get("kind")))) {
      assertThat(RbacRules.flatten(role)).as("%s %s", role.get("kind"), Manifests.name(role))
          .noneMatch(p -> p.contains("*"))
          .noneMatch(p -> p.startsWith("/secrets") || p.startsWith("/pods") || p.startsWith("/configmaps"));
    }
  }

  /** The ClusterRole that Steward's ServiceAccount is bound to (the others are for users). */
  static Map<String, Object> managerRole(Manifests out, String fullname) {
    return out.get("ClusterRole", null, fullname + "-manager");
  }

  private static String image(Manifests out) {
    return (String) single(list(out.single("Deployment"), "spec", "template", "spec", "containers")).get("image");
  }

  /** The container's env as name → value (a string) or valueFrom (a map). */
  static Map<String, Object> env(Map<String, Object> container) {
    return list(container, "env").stream().collect(Collectors.toMap(e -> (String) e.get("name"),
        e -> e.containsKey("value") ? e.get("value") : e.get("valueFrom"), (a, b) -> b, LinkedHashMap::new));
  }

  private static Map<String, Object> volume(Map<String, Object> pod, String name) {
    return list(pod, "volumes").stream().filter(v -> name.equals(v.get("name"))).findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  private static Map<String, Object> single(List<Map<String, Object>> items) {
    assertThat(items).hasSize(1);
    return items.get(0);
  }
}
