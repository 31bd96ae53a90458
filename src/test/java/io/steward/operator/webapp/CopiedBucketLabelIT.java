package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.RawApi;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Sharded mode, input the CRD accepts: a WebApp created with a bucket label that is not its name's
 * (a manifest copied from another WebApp with its labels). Only the owner of its name's bucket may
 * reconcile it, and that owner's informers select its buckets' labels or none; left as it is, the
 * WebApp would get no Deployment and no status, ever. Judged from what the API server holds.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class CopiedBucketLabelIT {
  private static final int BUCKETS = 32;

  @Test
  void aWebAppCreatedWithAnotherBucketsLabelIsRelabelledAndReconciled(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    String ns = namespace.name();
    Crds.installWebAppCrd(cluster.adminClient());
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    int belongs = BucketHash.bucketOf(ns, "copy", BUCKETS);
    String copied = Integer.toString((belongs + 1) % BUCKETS);
    try (InProcessOperator operator = InProcessOperator.start(cluster, ns, "sharded-" + ns, Map.of(
        "steward.sharding.enabled", "true",
        "steward.sharding.buckets", BUCKETS,
        "steward.leader-election.lease-duration", "6s",
        "steward.leader-election.renew-deadline", "4s",
        "steward.leader-election.retry-period", "1s"))) {
      webApps.api().create(new WebApp().metadata(new V1ObjectMeta().name("copy").namespace(ns)
          .labels(Map.of(BucketHash.LABEL, copied))).spec(WebApps.spec("nginx:1.27", 1, 80))).throwsApiException();

      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
        WebApp copy = webApps.get("copy");
        assertThat(copy.getMetadata().getLabels()).containsEntry(BucketHash.LABEL, Integer.toString(belongs));
        assertThat(copy.getStatus().observedGeneration()).isEqualTo(copy.getMetadata().getGeneration());
        assertThat(new RawApi(cluster.adminClient()).get("/apis/apps/v1/namespaces/" + ns + "/deployments/copy")
            .getAsJsonObject("metadata").getAsJsonObject("labels").get(BucketHash.LABEL).getAsString())
            .isEqualTo(Integer.toString(belongs));
      });
    }
  }
}
