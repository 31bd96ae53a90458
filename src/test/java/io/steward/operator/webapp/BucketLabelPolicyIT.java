package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.operator.support.BucketLabelPolicy;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.RawApi;
import io.steward.operator.support.WebAppSpecGenerator;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sharded mode's MutatingAdmissionPolicy (charts/steward, sharding.labelAtAdmission), on a real API
 * server: the bucket label the API server's CEL puts on a new WebApp must be the bucket Steward computes
 * ({@link BucketHash}) for every name, or the WebApp goes to a replica that may not reconcile it. Names
 * are random DNS labels (the seed is in every failure), in a namespace with the longest name allowed
 * and in a short one; then Steward itself, with the policy counting buckets as it does and otherwise.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class BucketLabelPolicyIT {
  private static final int NAMES_PER_NAMESPACE = 120;
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @ParameterizedTest(name = "{0} buckets")
  @ValueSource(ints = {2, 8, 32, 64})
  void everyNewWebAppIsLabelledWithTheBucketStewardComputes(int buckets, LocalCluster cluster) throws Exception {
    ApiClient admin = cluster.adminClient();
    Crds.installWebAppCrd(admin);
    long seed = Long.getLong("steward.fuzz.seed", System.nanoTime());
    Random random = new Random(seed);
    WebAppSpecGenerator names = new WebAppSpecGenerator(seed);
    String shortest = createNamespace(admin, "b" + buckets + "-" + names.name(4));
    String longest = createNamespace(admin, names.name(63));
    List<String> namespaces = List.of(shortest, longest);
    try (BucketLabelPolicy policy = BucketLabelPolicy.install(admin, release(shortest, buckets), buckets, namespaces)) {
      Map<String, String> wrong = new HashMap<>();
      for (String ns : namespaces) {
        WebApps webApps = new WebApps(admin, ns);
        List<String> toCreate = new ArrayList<>(List.of("a", names.name(63), "a-" + "b".repeat(61)));
        for (int i = 0; i < NAMES_PER_NAMESPACE; i++) {
          toCreate.add(names.name(1 + random.nextInt(63)));
        }
        for (String name : toCreate.stream().distinct().toList()) {
          WebApp created = webApps.create(name, WebApps.spec("nginx:1.27", 1, 80));
          String label = created.getMetadata().getLabels() == null ? null
              : created.getMetadata().getLabels().get(BucketHash.LABEL);
          String expected = Integer.toString(BucketHash.bucketOf(ns, name, buckets));
          if (!expected.equals(label)) {
            wrong.put(ns + "/" + name, label + " (Steward: " + expected + ")");
          }
        }
      }
      assertThat(wrong).as("WebApps the policy labelled with another bucket than Steward's; seed %d", seed).isEmpty();

      // A label copied from another WebApp's manifest is replaced; the manifest's other labels stay.
      WebApps webApps = new WebApps(admin, shortest);
      int belongs = BucketHash.bucketOf(shortest, "copied", buckets);
      WebApp copied = webApps.api().create(new WebApp().metadata(new V1ObjectMeta().name("copied").namespace(shortest)
          .labels(Map.of(BucketHash.LABEL, Integer.toString((belongs + 1) % buckets), "team", "blue")))
          .spec(WebApps.spec("nginx:1.27", 1, 80))).throwsApiException().getObject();
      assertThat(copied.getMetadata().getLabels())
          .containsEntry(BucketHash.LABEL, Integer.toString(belongs)).containsEntry("team", "blue");

      // A generated name is not known at admission: the WebApp is left to Steward to label.
      WebApp generated = webApps.api().create(new WebApp().metadata(new V1ObjectMeta().generateName("gen-")
          .namespace(shortest)).spec(WebApps.spec("nginx:1.27", 1, 80))).throwsApiException().getObject();
      assertThat(generated.getMetadata().getLabels() == null ? Map.of() : generated.getMetadata().getLabels())
          .doesNotContainKey(BucketHash.LABEL);

      // Creates only: an update that takes the label off (as Steward does to a misfiled WebApp) stays.
      new RawApi(admin).mergePatch("/apis/steward.io/v1alpha1/namespaces/" + shortest + "/webapps/copied",
          "{\"metadata\":{\"labels\":{\"" + BucketHash.LABEL + "\":null}}}", "test");
      assertThat(webApps.get("copied").getMetadata().getLabels()).doesNotContainKey(BucketHash.LABEL);
    }
  }

  /**
   * The policy counting buckets as Steward does: Steward writes no label of its own (three writes per
   * new WebApp, as the single leader), and every WebApp converges.
   */
  @Test
  void stewardWritesNoLabelOfItsOwnWhereThePolicyLabels(LocalCluster cluster) throws Exception {
    Map<String, Long> writes = convergeUnderPolicy(cluster, 32, 32);
    assertThat(writes).as("Steward's writes to WebApps (not their status), by WebApp").isEmpty();
  }

  /**
   * A policy counting buckets otherwise than Steward (a release's values edited by hand): Steward
   * moves what the policy misfiled, at most two writes per WebApp, and then nothing. Were the policy to
   * label updates as well, it would undo each move: those WebApps would never reach their bucket's
   * owner, and the two would write for ever (tried: the wait for convergence times out).
   */
  @Test
  void aPolicyCountingOtherBucketsCostsAFewWritesNotALoop(LocalCluster cluster) throws Exception {
    Map<String, Long> writes = convergeUnderPolicy(cluster, 16, 32);
    assertThat(writes.values()).as("Steward's writes to each WebApp's labels: %s", writes).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
    assertThat(writes).as("some WebApps were labelled with another bucket than Steward's").isNotEmpty();
  }

  private static Map<String, Long> convergeUnderPolicy(LocalCluster cluster, int policyBuckets, int stewardBuckets)
      throws Exception {
    ApiClient admin = cluster.adminClient();
    Crds.installWebAppCrd(admin);
    String ns = createNamespace(admin, "bl-p" + policyBuckets + "-s" + stewardBuckets + "-"
        + new WebAppSpecGenerator(System.nanoTime()).name(4));
    WebApps webApps = new WebApps(admin, ns);
    try (BucketLabelPolicy policy = BucketLabelPolicy.install(admin, release(ns, policyBuckets), policyBuckets, List.of(ns));
        InProcessOperator operator = InProcessOperator.start(cluster, ns, "sharded-" + ns, Map.of(
        "steward.sharding.enabled", "true",
        "steward.sharding.buckets", stewardBuckets,
        "steward.leader-election.lease-duration", "6s",
        "steward.leader-election.renew-deadline", "4s",
        "steward.leader-election.retry-period", "1s"))) {
      Instant since = Instant.now();
      List<String> names = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        names.add("app-" + i);
        webApps.create("app-" + i, WebApps.spec("nginx:1.27", 1, 80));
      }
      await().atMost(CONVERGE).ignoreExceptions().untilAsserted(() -> {
        for (String name : names) {
          WebApp webApp = webApps.get(name);
          assertThat(webApp.getMetadata().getLabels())
              .containsEntry(BucketHash.LABEL, Integer.toString(BucketHash.bucketOf(ns, name, stewardBuckets)));
          assertThat(webApp.getStatus().observedGeneration()).isEqualTo(webApp.getMetadata().getGeneration());
        }
      });
      Thread.sleep(3_000); // a loop between the policy and Steward would go on writing through this
      Map<String, Long> byWebApp = new LinkedHashMap<>();
      for (AuditLog.Entry write : cluster.auditLog().writesBy(operator.userAgent(), since)) {
        if (ns.equals(write.namespace()) && "webapps".equals(write.resource()) && write.subresource().isEmpty()) {
          byWebApp.merge(write.name(), 1L, Long::sum);
        }
      }
      return byWebApp;
    }
  }

  /** A namespace of this test's own: each case creates WebApps of the same names. */
  private static String createNamespace(ApiClient admin, String name) throws Exception {
    new CoreV1Api(admin).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name))).execute();
    return name;
  }

  private static String release(String ns, int buckets) {
    return "bl" + buckets + "-" + ns.substring(ns.length() - 4);
  }
}
