package io.steward.operator.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.RawApi;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.Conditions;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Poison isolation: WebApps the API server accepts but whose Deployment it always refuses (an
 * admission policy bans their image) must cost one attempt each and then nothing until their spec
 * changes, and must not slow down the healthy WebApps beside them. Healthy spec changes are timed
 * from the API server's audit log (the WebApp update received to Steward's Deployment patch
 * received), first alone, then with the poisoned WebApps present and resyncs sweeping over all of
 * them. A Steward that retried refused specs would show up twice here: in the write counts per
 * poisoned WebApp, and in the healthy latencies.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class PoisonIsolationIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final int POISONED = FULL ? 1_000 : 150;
  private static final int HEALTHY = FULL ? 100 : 40;
  private static final String BANNED_REGISTRY = "registry.invalid/";
  private static final Duration RESYNC = Duration.ofSeconds(5);
  private static final String SCENARIO = "poison isolation";

  @AfterAll
  static void writeReport() {
    REPORT.write(java.nio.file.Path.of("target", "reliability"));
  }

  @Test
  void poisonedWebAppsCostOneAttemptEachAndDoNotSlowHealthyOnes(LocalCluster cluster) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String suffix = Long.toString(System.nanoTime() % 1_000_000, 36);
    String healthyNs = "poison-healthy-" + suffix;
    String poisonNs = "poison-refused-" + suffix;
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    for (String ns : List.of(healthyNs, poisonNs)) {
      core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(ns))).execute();
    }
    banImagesIn(new RawApi(cluster.adminClient()), poisonNs, "poison-ban-" + suffix);
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    await().atMost(Duration.ofSeconds(30)).until(() -> isRefused(apps, poisonNs));

    WebApps healthy = new WebApps(cluster.adminClient(), healthyNs);
    WebApps poisoned = new WebApps(cluster.adminClient(), poisonNs);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < HEALTHY; i++) {
      names.add("healthy-" + i);
      healthy.create("healthy-" + i, WebApps.spec("nginx:1.27", 1, 80));
    }

    try (OperatorProcess operator = OperatorProcess.start(cluster, "poison-" + suffix, Map.of(
        "steward.namespaces", healthyNs + "," + poisonNs, "steward.leader-election.enabled", "false",
        "steward.resync-period", RESYNC.toSeconds() + "s"))) {
      await().atMost(Duration.ofMinutes(2)).until(operator::isReady);
      Convergence.await(healthy, apps, healthyNs, Set.of(), Duration.ofMinutes(3));

      List<Long> alone = timeChanges(cluster.auditLog(), healthy, healthyNs, names, operator, "nginx:1.28");

      Instant poisonStart = Instant.now();
      for (int i = 0; i < POISONED; i++) {
        poisoned.create("poisoned-" + i, WebApps.spec(BANNED_REGISTRY + "app:" + i, 1, 80));
      }
      await().atMost(Duration.ofMinutes(FULL ? 10 : 5)).pollInterval(Duration.ofSeconds(1))
          .until(() -> stalled(poisoned) == POISONED);
      Duration allStalled = Duration.between(poisonStart, Instant.now());
      // Let resyncs sweep over every WebApp before and while the healthy ones change.
      Thread.sleep(RESYNC.toMillis());
      List<Long> beside = timeChanges(cluster.auditLog(), healthy, healthyNs, names, operator, "nginx:1.29");
      Thread.sleep(RESYNC.toMillis());

      List<AuditLog.Entry> poisonWrites = cluster.auditLog().entries(e -> e.mutating()
          && poisonNs.equals(e.namespace()) && e.fromUserAgentStartingWith(operator.userAgent())
          && !e.received().isBefore(poisonStart));
      Map<String, Long> ownedAttempts = perName(poisonWrites, e -> "deployments".equals(e.resource())
          || "services".equals(e.resource()));
      Map<String, Long> statusWrites = perName(poisonWrites, e -> "webapps".equals(e.resource()));
      long events = poisonWrites.stream().filter(e -> "events".equals(e.resource())).count();
      long refusedCreates = poisonWrites.stream().filter(e -> "deployments".equals(e.resource())
          && e.code() == 422).count();

      // The cure: a new spec (an allowed image) converges the WebApp without a restart.
      String cured = "poisoned-0";
      poisoned.updateSpec(cured, spec -> spec.withImage("nginx:1.27"));
      await().atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() ->
          apps.readNamespacedDeployment(cured, poisonNs).execute().getSpec().getTemplate().getSpec()
              .getContainers().get(0).getImage().equals("nginx:1.27"));

      long p50Alone = Percentiles.of(alone, 50);
      long p99Alone = Percentiles.of(alone, 99);
      long p99Beside = Percentiles.of(beside, 99);
      REPORT.record(SCENARIO, "poisoned WebApps (Deployment refused at admission) / healthy spec changes",
          POISONED + " / " + HEALTHY);
      REPORT.record(SCENARIO, "resync period, s", RESYNC.toSeconds());
      REPORT.record(SCENARIO, "all poisoned WebApps Stalled after, s", allStalled.toMillis() / 1000.0);
      REPORT.record(SCENARIO, "healthy change to Deployment patch, alone: p50 / p99 ms", p50Alone + " / " + p99Alone);
      REPORT.record(SCENARIO, "healthy change to Deployment patch, beside the poison: p50 / p99 ms",
          Percentiles.of(beside, 50) + " / " + p99Beside);
      REPORT.record(SCENARIO, "p99 beside the poison / p99 alone (goal <= 2)",
          p99Alone == 0 ? "n/a" : String.format("%.2f", (double) p99Beside / p99Alone));
      REPORT.record(SCENARIO, "owned-object write attempts per poisoned WebApp, max",
          ownedAttempts.values().stream().mapToLong(Long::longValue).max().orElse(0));
      REPORT.record(SCENARIO, "refused Deployment creates, total", refusedCreates);
      REPORT.record(SCENARIO, "status writes per poisoned WebApp, max",
          statusWrites.values().stream().mapToLong(Long::longValue).max().orElse(0));
      REPORT.record(SCENARIO, "Events for poisoned WebApps, total", events);

      assertThat(refusedCreates).as("the ban works: every poisoned WebApp's Deployment was refused once")
          .isEqualTo(POISONED);
      assertThat(ownedAttempts).as("owned-object writes per poisoned WebApp (one attempt, then none until the spec changes)")
          .allSatisfy((name, count) -> assertThat(count).as(name).isEqualTo(1));
      assertThat(statusWrites).as("status writes per poisoned WebApp")
          .allSatisfy((name, count) -> assertThat(count).as(name).isEqualTo(1));
      assertThat(events).as("one Warning Event per poisoned WebApp").isEqualTo(POISONED);
      assertThat(p99Beside).as("p99 of healthy changes beside the poison, ms (goal 2x alone; sanity bound)")
          .isLessThan(2 * p99Alone + 1_000);
    }
  }

  /**
   * Changes each healthy WebApp's image, one every 100 ms, and returns per change the time from the
   * update reaching the API server to Steward's patch of the Deployment reaching it.
   */
  private static List<Long> timeChanges(AuditLog audit, WebApps webApps, String ns, List<String> names,
      OperatorProcess operator, String image) throws Exception {
    Instant start = Instant.now();
    for (String name : names) {
      webApps.updateSpec(name, spec -> spec.withImage(image));
      Thread.sleep(100);
    }
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() ->
        patchesOf(audit, ns, operator, start).size() >= names.size());
    Map<String, Instant> updated = audit.entries(e -> ns.equals(e.namespace()) && "webapps".equals(e.resource())
            && e.subresource().isEmpty() && "update".equals(e.verb()) && e.code() == 200
            && !e.received().isBefore(start)).stream()
        .collect(Collectors.toMap(AuditLog.Entry::name, AuditLog.Entry::received, (a, b) -> a));
    Map<String, Instant> patched = patchesOf(audit, ns, operator, start);
    List<Long> latencies = new ArrayList<>();
    for (String name : names) {
      latencies.add(Duration.between(updated.get(name), patched.get(name)).toMillis());
    }
    return latencies;
  }

  /** Steward's first successful Deployment patch per name since {@code start}. */
  private static Map<String, Instant> patchesOf(AuditLog audit, String ns, OperatorProcess operator, Instant start) {
    return audit.entries(e -> ns.equals(e.namespace()) && "deployments".equals(e.resource())
            && "patch".equals(e.verb()) && e.code() == 200 && e.fromUserAgentStartingWith(operator.userAgent())
            && !e.received().isBefore(start)).stream()
        .sorted(Comparator.comparing(AuditLog.Entry::received))
        .collect(Collectors.toMap(AuditLog.Entry::name, AuditLog.Entry::received, (a, b) -> a));
  }

  private static Map<String, Long> perName(List<AuditLog.Entry> entries, java.util.function.Predicate<AuditLog.Entry> filter) {
    return entries.stream().filter(filter).collect(Collectors.groupingBy(AuditLog.Entry::name, Collectors.counting()));
  }

  private static long stalled(WebApps webApps) throws ApiException {
    return webApps.list().stream().filter(PoisonIsolationIT::isStalled).count();
  }

  private static boolean isStalled(WebApp webApp) {
    return webApp.getStatus() != null && Conditions.isTrue(webApp.getStatus().conditionsOrEmpty(), "Stalled");
  }

  /** A ValidatingAdmissionPolicy refusing Deployments with images from the banned registry in {@code ns}. */
  private static void banImagesIn(RawApi raw, String ns, String name) {
    raw.post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", JsonParser.parseString("""
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
         "metadata":{"name":"%1$s"},
         "spec":{"failurePolicy":"Fail",
           "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
             "operations":["CREATE","UPDATE"],"resources":["deployments"]}]},
           "validations":[{"expression":"object.spec.template.spec.containers.all(c, !c.image.startsWith('%2$s'))",
             "message":"images from %2$s are not allowed in this namespace"}]}}
        """.formatted(name, BANNED_REGISTRY)).getAsJsonObject().toString());
    JsonObject binding = JsonParser.parseString("""
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
         "metadata":{"name":"%1$s"},
         "spec":{"policyName":"%1$s","validationActions":["Deny"],
           "matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"%2$s"}}}}}
        """.formatted(name, ns)).getAsJsonObject();
    raw.post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", binding.toString());
  }

  /** Whether the ban is in force yet: a Deployment with a banned image is refused (a dry run). */
  private static boolean isRefused(AppsV1Api apps, String ns) {
    var labels = Map.of("app", "probe");
    var probe = new io.kubernetes.client.openapi.models.V1Deployment().metadata(new V1ObjectMeta().name("probe"))
        .spec(new io.kubernetes.client.openapi.models.V1DeploymentSpec()
            .selector(new io.kubernetes.client.openapi.models.V1LabelSelector().matchLabels(labels))
            .template(new io.kubernetes.client.openapi.models.V1PodTemplateSpec()
                .metadata(new V1ObjectMeta().labels(labels))
                .spec(new io.kubernetes.client.openapi.models.V1PodSpec().containers(List.of(
                    new io.kubernetes.client.openapi.models.V1Container().name("c").image(BANNED_REGISTRY + "probe"))))));
    try {
      apps.createNamespacedDeployment(ns, probe).dryRun("All").execute();
      return false;
    } catch (ApiException e) {
      return e.getCode() == 422;
    }
  }
}
