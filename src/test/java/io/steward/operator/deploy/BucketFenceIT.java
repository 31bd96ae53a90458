package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chart in sharded mode on a real API server: its bucket fence (a ValidatingAdmissionPolicy over
 * the bucket Leases) refuses a write by Steward's ServiceAccount to an object of a bucket whose Lease
 * another pod holds, and lets the holder's through; then two replicas of the built jar, run as the
 * chart's pods with pod-bound tokens and the chart's RBAC, converge WebApps under that fence.
 * {@code -Dsteward.fence.withoutPolicy=true} installs everything but the fence: then the refusals are
 * missing and the test fails.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BucketFenceIT {
  private static final boolean WITHOUT_POLICY = Boolean.getBoolean("steward.fence.withoutPolicy");

  private static LocalCluster cluster;
  private static RenderedChart chart;
  private static String ns;
  private static final List<OperatorProcess> replicas = new ArrayList<>();

  @BeforeAll
  static void installShardedChartWithoutItsDeployment(LocalCluster localCluster, TestNamespace namespace) {
    cluster = localCluster;
    ns = namespace.name();
    chart = RenderedChart.installWithoutItsDeployment(cluster, ns, WITHOUT_POLICY
        ? Set.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding") : Set.of(),
        Map.of("sharding", Map.of("enabled", true), "leaderElection",
            Map.of("leaseDuration", "6s", "renewDeadline", "4s", "retryPeriod", "1s")));
  }

  @AfterAll
  static void cleanUp() {
    replicas.forEach(OperatorProcess::close);
    if (cluster != null && chart != null) {
      DeployTesting.deleteClusterScoped(cluster, chart.manifests);
    }
  }

  @Test
  @Order(1)
  void policyTypeChecksWithoutWarnings() {
    if (WITHOUT_POLICY) {
      return;
    }
    DynamicKubernetesApi policies = new DynamicKubernetesApi("admissionregistration.k8s.io", "v1",
        "validatingadmissionpolicies", cluster.adminClient());
    String name = Manifests.name(chart.manifests.single("ValidatingAdmissionPolicy", "bucket-fence"));
    JsonObject status = await().atMost(Duration.ofSeconds(30)).until(() -> {
      JsonObject raw = policies.get(name).throwsApiException().getObject().getRaw();
      return raw.has("status") && raw.getAsJsonObject("status").has("typeChecking") ? raw.getAsJsonObject("status") : null;
    }, s -> s != null);
    JsonObject typeChecking = status.getAsJsonObject("typeChecking");
    assertThat(typeChecking.has("expressionWarnings") ? typeChecking.getAsJsonArray("expressionWarnings").toString() : "")
        .as("type-checking warnings of %s", name).isEmpty();
  }

  @Test
  @Order(2)
  void onlyTheHolderOfAnObjectsBucketMayWriteIt() throws Exception {
    ApiClient holder = client("steward-5d8c6f7b9-holder");
    ApiClient other = client("steward-5d8c6f7b9-other");
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    leases.createNamespacedLease(ns, new V1Lease().metadata(new V1ObjectMeta().name("steward-bucket-5")
            .labels(Map.of("steward.io/shard-lease", "bucket", "steward.io/bucket", "5")))
        .spec(new V1LeaseSpec().holderIdentity("steward-5d8c6f7b9-holder"))).execute();

    ApiException refused = await().atMost(Duration.ofSeconds(30)).until(() -> tryCreateService(other, "b5-other", "5"),
        e -> e != null && e.getResponseBody().contains("ValidatingAdmissionPolicy"));
    assertThat(refused.getCode()).isEqualTo(403);
    assertThat(refused.getResponseBody()).contains("of bucket 5: it does not hold the bucket Lease " + ns
        + "/steward-bucket-5", "(holder: steward-5d8c6f7b9-holder)");
    assertThat(tryCreateService(holder, "b5-holder", "5")).as("the holder's write").isNull();
    assertThat(tryCreateService(other, "b6-other", "6")).as("a bucket without a Lease").isNull();
    assertThat(tryCreateService(other, "unlabelled", null)).as("an object without a bucket").isNull();

    // A delete is judged by the object being deleted.
    new CoreV1Api(cluster.adminClient()).createNamespacedService(ns, service("b5-kept", "5")).execute();
    ApiException deleteRefused = null;
    try {
      new CoreV1Api(other).deleteNamespacedService("b5-kept", ns).execute();
    } catch (ApiException e) {
      deleteRefused = e;
    }
    assertThat(deleteRefused == null ? 0 : deleteRefused.getCode()).as("delete by another pod").isEqualTo(403);

    // Released: nobody may write the bucket's objects.
    V1Lease lease = leases.readNamespacedLease("steward-bucket-5", ns).execute();
    lease.getSpec().holderIdentity("");
    leases.replaceNamespacedLease("steward-bucket-5", ns, lease).execute();
    await().atMost(Duration.ofSeconds(30)).until(() -> tryCreateService(holder, "b5-released", "5"), e -> e != null);
    leases.deleteNamespacedLease("steward-bucket-5", ns).execute();
  }

  @Test
  @Order(3)
  void shardedReplicasConvergeUnderTheFenceWithTheChartsRbac() throws Exception {
    for (int i = 0; i < 2; i++) {
      replicas.add(chart.startReplica(cluster, "steward-5d8c6f7b9-shard" + i, List.of()));
    }
    await().atMost(ChartEndToEnd.START).until(() -> replicas.stream().allMatch(OperatorProcess::isReady));
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    for (int i = 0; i < 20; i++) {
      webApps.create("sharded-" + i, WebApps.spec("nginx:1.27", 1, 80));
    }
    Convergence.await(webApps, new AppsV1Api(cluster.adminClient()), ns, Set.of(), ChartEndToEnd.CONVERGE);
    for (OperatorProcess replica : replicas) {
      assertThat(replica.actuator("shards").body()).as("/actuator/shards of %s", replica.identity())
          .contains("\"liveMembers\":[\"steward-5d8c6f7b9-shard0\",\"steward-5d8c6f7b9-shard1\"]");
    }
  }

  private static ApiClient client(String podName) {
    Path kubeconfig = chart.serviceAccount(cluster).writeKubeconfig(cluster,
        Path.of("target", "deploy-it", ns, "clients", podName + ".kubeconfig"), chart.createPod(cluster, podName));
    return LocalCluster.clientFor(kubeconfig, "bucket-fence-test/" + podName);
  }

  private static V1Service service(String name, String bucket) {
    V1ObjectMeta metadata = new V1ObjectMeta().name(name);
    if (bucket != null) {
      metadata.labels(Map.of("steward.io/bucket", bucket));
    }
    return new V1Service().metadata(metadata).spec(new V1ServiceSpec().selector(Map.of("app", name))
        .ports(List.of(new V1ServicePort().port(80))));
  }

  /** Creates (and removes again) a Service as {@code client}; the refusal, or null when it was allowed. */
  private static ApiException tryCreateService(ApiClient client, String name, String bucket) {
    try {
      new CoreV1Api(client).createNamespacedService(ns, service(name, bucket)).execute();
    } catch (ApiException e) {
      return e;
    }
    try {
      new CoreV1Api(cluster.adminClient()).deleteNamespacedService(name, ns).execute();
    } catch (ApiException e) {
      throw new IllegalStateException("deleting the probe Service " + name + ": HTTP " + e.getCode(), e);
    }
    return null;
  }
}
