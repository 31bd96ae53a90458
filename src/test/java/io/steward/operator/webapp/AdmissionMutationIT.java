package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.custom.Quantity;
import io.steward.operator.runtime.controller.ControllerMetrics;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.RawApi;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Steward beside a policy engine: built-in MutatingAdmissionPolicies (GA since Kubernetes 1.36) add an
 * env var, a default memory limit, an annotation and a label, and a sidecar to Steward's Deployments,
 * on Steward's own requests. Steward must take what they add as someone else's fields: every WebApp
 * becomes Ready and, once converged, Steward sends no write at all, as the API server's audit log
 * records. (Before field ownership Steward undid each addition, admission added it back on the same
 * request, and Steward rewrote the Deployment dozens of times a second.)
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class AdmissionMutationIT {
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final Duration MEASURE = Duration.ofSeconds(15);
  private static final String COMBINED = "combined";
  /** Each policy and the WebApps it mutates: its own and the one that gets them all. */
  private static final Map<String, String> POLICIES = new LinkedHashMap<>();

  static {
    String app = "Object.spec.template.spec.containers";
    POLICIES.put("env", "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
        + "containers: [" + app + "{name: 'app', env: [" + app + ".env{name: 'INJECTED_BY_POLICY', value: 'yes'}]}]}}}}");
    POLICIES.put("limit", "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
        + "containers: [" + app + "{name: 'app', resources: " + app + ".resources{limits: {'memory': '256Mi'}}}]}}}}");
    POLICIES.put("meta", "Object{metadata: Object.metadata{annotations: {'policy.example.com/audited': 'true'},"
        + " labels: {'policy.example.com/team': 'blue'}}}");
    POLICIES.put("sidecar", "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
        + "containers: [" + app + "{name: 'proxy', image: 'envoyproxy/envoy:v1.31'}]}}}}");
  }

  private static InProcessOperator operator;
  private static WebApps webApps;
  private static RawApi raw;
  private static String ns;

  @BeforeAll
  static void start(LocalCluster cluster, TestNamespace namespace) {
    Crds.installWebAppCrd(cluster.adminClient());
    ns = namespace.name();
    raw = new RawApi(cluster.adminClient());
    POLICIES.forEach((name, mutation) -> createPolicy(name, mutation, name.equals("limit")
        ? "!has(object.spec.template.spec.containers[0].resources.limits)"
            + " || !('memory' in object.spec.template.spec.containers[0].resources.limits)"
        : "true"));
    // A short resync: passes keep coming even without events, as over hours in production.
    operator = InProcessOperator.start(cluster, ns, "mutated-" + ns, Map.of("steward.resync-period", "5s"));
    webApps = new WebApps(cluster.adminClient(), ns);
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (raw != null) {
      POLICIES.keySet().forEach(name -> {
        raw.delete("/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings/" + policyName(name));
        raw.delete("/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies/" + policyName(name));
      });
    }
  }

  @Test
  void whatAdmissionAddsStaysAndConvergedWebAppsCostNoWrites(LocalCluster cluster) throws Exception {
    List<String> names = new ArrayList<>(POLICIES.keySet());
    names.add(COMBINED);
    for (String name : names) {
      // A cpu request but no memory limit, so the limit policy has something to default.
      webApps.create(name, new WebAppSpec("nginx:1.27", 1, 8080, null, List.of(new WebAppSpec.EnvVar("GREETING", "hi")),
          new WebAppSpec.ResourceSettings(Map.of("cpu", new Quantity("50m")), null), "/", false));
    }
    await().atMost(CONVERGE).ignoreExceptions().until(() -> names.stream().allMatch(n -> deployment(n) != null));

    // The figure for the note: Steward's writes per minute on each WebApp, from the audit log, while
    // resyncs wake a pass over each every few seconds.
    Thread.sleep(5_000);
    Instant from = Instant.now();
    Thread.sleep(MEASURE.toMillis());
    Instant to = Instant.now();
    Map<String, Double> perMinute = new LinkedHashMap<>();
    for (String name : names) {
      long writes = stewardWrites(cluster, name, from).stream().filter(e -> e.received().isBefore(to)).count();
      perMinute.put(name, writes * 60_000.0 / Duration.between(from, to).toMillis());
    }
    System.out.println("[figures] Steward writes per minute on a WebApp's objects under each policy: " + perMinute);

    for (String name : names) {
      awaitStatus(name, w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));
    }
    assertThat(perMinute).as("Steward's writes per minute once the WebApps exist").allSatisfy((n, w) -> assertThat(w).isZero());
    assertAdditionsPresent("env", "combined");

    // Three more passes over every WebApp, woken by a change to each Deployment's metadata.
    Instant touched = Instant.now();
    long passesBefore = passes();
    for (int round = 1; round <= 3; round++) {
      for (String name : names) {
        raw.mergePatch("/apis/apps/v1/namespaces/" + ns + "/deployments/" + name,
            "{\"metadata\":{\"annotations\":{\"test.steward.io/touch\":\"" + round + "\"}}}", "steward-tests");
      }
      Thread.sleep(2_000);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> passes() - passesBefore >= 3L * names.size());
    assertThat(names).allSatisfy(name -> assertThat(stewardWrites(cluster, name, touched))
        .as("Steward's writes to %s's objects over three passes", name).isEmpty());
    assertAdditionsPresent("env", "combined");

    // A change to the WebApp's own spec still rolls the Deployment, with one write.
    Instant changed = Instant.now();
    webApps.updateSpec(COMBINED, s -> s.withImage("nginx:1.28"));
    awaitStatus(COMBINED, w -> {
      assertThat(w.getStatus().observedGeneration()).isEqualTo(w.getMetadata().getGeneration());
      assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready);
    });
    Thread.sleep(3_000);
    assertThat(stewardWrites(cluster, COMBINED, changed)).as("Steward's writes to roll the Deployment").singleElement()
        .satisfies(e -> assertThat(e.resource()).isEqualTo("deployments"));
    assertThat(container(deployment(COMBINED), "app").get("image").getAsString()).isEqualTo("nginx:1.28");
    assertAdditionsPresent(COMBINED);

    // How the API server records admission's additions in managedFields decides whether Steward would
    // take them for its own and remove them: they are in no entry of Steward's.
    List<String> stewardFields = new ArrayList<>();
    for (JsonElement entry : deployment(COMBINED).getAsJsonObject("metadata").getAsJsonArray("managedFields")) {
      if ("steward".equals(entry.getAsJsonObject().get("manager").getAsString())) {
        stewardFields.add(entry.getAsJsonObject().get("fieldsV1").toString());
      }
    }
    assertThat(stewardFields).isNotEmpty().allSatisfy(fields -> assertThat(fields)
        .contains("GREETING").doesNotContain("INJECTED_BY_POLICY").doesNotContain("policy.example.com")
        .doesNotContain("proxy").doesNotContain("f:memory"));
  }

  // ---- what the policies add -------------------------------------------------------------------

  private static void assertAdditionsPresent(String... names) {
    for (String name : names) {
      JsonObject deployment = deployment(name);
      JsonObject app = container(deployment, "app");
      if (name.equals("env") || name.equals(COMBINED)) {
        assertThat(envNames(app)).as("%s env", name).contains("GREETING", "INJECTED_BY_POLICY");
      }
      if (name.equals("limit") || name.equals(COMBINED)) {
        assertThat(app.getAsJsonObject("resources").getAsJsonObject("limits").get("memory").getAsString()).isEqualTo("256Mi");
        assertThat(app.getAsJsonObject("resources").getAsJsonObject("requests").get("cpu").getAsString()).isEqualTo("50m");
      }
      if (name.equals("meta") || name.equals(COMBINED)) {
        assertThat(deployment.getAsJsonObject("metadata").getAsJsonObject("annotations").get("policy.example.com/audited")
            .getAsString()).isEqualTo("true");
        assertThat(deployment.getAsJsonObject("metadata").getAsJsonObject("labels").get("policy.example.com/team")
            .getAsString()).isEqualTo("blue");
      }
      if (name.equals("sidecar") || name.equals(COMBINED)) {
        assertThat(container(deployment, "proxy")).as("%s sidecar", name).isNotNull();
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static String policyName(String name) {
    return "steward-it-" + name + "-" + ns;
  }

  /** A policy that mutates this namespace's Deployments of WebApp {@code name} and of {@value #COMBINED}. */
  private static void createPolicy(String name, String applyConfiguration, String condition) {
    JsonObject policy = new JsonObject();
    policy.addProperty("apiVersion", "admissionregistration.k8s.io/v1");
    policy.addProperty("kind", "MutatingAdmissionPolicy");
    policy.add("metadata", object("name", policyName(name)));
    policy.add("spec", com.google.gson.JsonParser.parseString("""
        {"matchConstraints":{
           "resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}],
           "namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"%s"}},
           "objectSelector":{"matchExpressions":[{"key":"app.kubernetes.io/instance","operator":"In","values":["%s","%s"]}]}},
         "matchConditions":[{"name":"applies","expression":%s}],
         "failurePolicy":"Fail","reinvocationPolicy":"Never",
         "mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":%s}}]}
        """.formatted(ns, name, COMBINED, quote(condition), quote(applyConfiguration))));
    raw.post("/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies", policy.toString());
    JsonObject binding = new JsonObject();
    binding.addProperty("apiVersion", "admissionregistration.k8s.io/v1");
    binding.addProperty("kind", "MutatingAdmissionPolicyBinding");
    binding.add("metadata", object("name", policyName(name)));
    binding.add("spec", object("policyName", policyName(name)));
    raw.post("/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings", binding.toString());
  }

  private static String quote(String text) {
    return new com.google.gson.JsonPrimitive(text).toString();
  }

  private static JsonObject object(String key, String value) {
    JsonObject result = new JsonObject();
    result.addProperty(key, value);
    return result;
  }

  static JsonObject deployment(String name) {
    try {
      return raw.get("/apis/apps/v1/namespaces/" + ns + "/deployments/" + name);
    } catch (IllegalStateException notFound) {
      return null;
    }
  }

  static JsonObject container(JsonObject deployment, String name) {
    for (JsonElement c : deployment.getAsJsonObject("spec").getAsJsonObject("template").getAsJsonObject("spec")
        .getAsJsonArray("containers")) {
      if (name.equals(c.getAsJsonObject().get("name").getAsString())) {
        return c.getAsJsonObject();
      }
    }
    return null;
  }

  static List<String> envNames(JsonObject container) {
    List<String> names = new ArrayList<>();
    if (container.has("env")) {
      container.getAsJsonArray("env").forEach(e -> names.add(e.getAsJsonObject().get("name").getAsString()));
    }
    return names;
  }

  /** Steward's writes to the WebApp's Deployment and Service since {@code since}, from the audit log. */
  private static List<AuditLog.Entry> stewardWrites(LocalCluster cluster, String name, Instant since) {
    return cluster.auditLog().writesBy(operator.userAgent(), since).stream()
        .filter(e -> ns.equals(e.namespace()) && name.equals(e.name()))
        .filter(e -> e.resource().equals("deployments") || e.resource().equals("services"))
        .toList();
  }

  private static long passes() {
    return operator.bean(ControllerMetrics.class).reconciles();
  }

  private static WebApp awaitStatus(String name, java.util.function.Consumer<WebApp> check) {
    return await().atMost(CONVERGE).ignoreExceptions().until(() -> {
      WebApp w = webApps.get(name);
      check.accept(w);
      return w;
    }, w -> true);
  }
}
