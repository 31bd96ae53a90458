package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.cache.WatchedKind;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BucketInformersTest {
  /**
   * Buckets taken together are listed together, and their work is queued once all have listed. A
   * bucket let go before it listed never will: the others' work must not wait for it for ever.
   */
  @Test
  void bucketsStartedTogetherAreReadyOnceEachHasListedOrBeenLetGo() throws Exception {
    ApiClient unreachable = new ApiClient().setBasePath("https://127.0.0.1:1").setReadTimeout(0);
    Informers informers = new Informers(new SharedInformerFactory(unreachable), unreachable, List.of(), "steward",
        Duration.ofSeconds(15), new SimpleMeterRegistry(), BucketInformers.UNBUCKETED);
    BucketInformers bucketInformers = new BucketInformers(informers, 32);
    informers.of(new WatchedKind<>(V1Deployment.class, V1DeploymentList.class, "apps", "v1", "deployments",
        "Deployment", "", false));
    informers.start();
    try {
      CompletableFuture<Void> ready = bucketInformers.startBuckets(Set.of(1, 2));
      assertThat(bucketInformers.bucketGroups()).containsExactly("1,2");

      bucketInformers.stopBucket(1);
      Thread.sleep(200);
      assertThat(ready).as("bucket 2 is still cached here and has not listed").isNotDone();
      bucketInformers.stopBucket(2);
      ready.get(5, TimeUnit.SECONDS);
      assertThat(bucketInformers.bucketGroups()).isEmpty();
    } finally {
      informers.stop();
    }
  }
}
