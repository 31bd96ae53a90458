package io.steward.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import com.google.gson.JsonParser;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.informer.cache.DeltaFIFO;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InformersTest {
  private static final String OWN_FIELDS =
      "{\"f:spec\":{\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"app\\\"}\":{\".\":{},\"f:env\":{}}}}}}}";

  /**
   * A re-list after a broken watch hands the transform the tombstone of each object that vanished
   * meanwhile. A controller's transform written for its kind (as a cast) must never see it: if it
   * threw, the informer would drop the deletion and keep the object cached.
   */
  @Test
  void theTombstoneOfAnObjectThatVanishedWhileTheWatchWasDownPassesUntransformed() throws InterruptedException {
    ApiClient client = new ApiClient().setReadTimeout(0);
    Informers informers = new Informers(new SharedInformerFactory(client), client, List.of(), "steward",
        Duration.ofSeconds(15), new SimpleMeterRegistry());
    WatchedKind<V1Deployment, V1DeploymentList> deployments = new WatchedKind<>(V1Deployment.class,
        V1DeploymentList.class, "apps", "v1", "deployments", "Deployment", "", false);
    informers.transformBeforeCaching(deployments, deployment -> {
      deployment.getMetadata().setGenerateName("transformed");
      return deployment;
    });
    // What the informer's queue produces when a re-list no longer has an object it knew.
    Cache<V1Deployment> known = new Cache<>();
    known.add(new V1Deployment().metadata(new V1ObjectMeta().namespace("team").name("shop")));
    DeltaFIFO fifo = new DeltaFIFO(Caches::deletionHandlingMetaNamespaceKeyFunc, known);
    fifo.replace(List.of(), "2");
    List<KubernetesObject> deleted = new ArrayList<>();
    fifo.pop(deltas -> deltas.forEach(delta -> deleted.add(delta.getRight())));
    assertThat(deleted).singleElement().isInstanceOf(DeltaFIFO.DeletedFinalStateUnknown.class);

    KubernetesObject tombstone = deleted.get(0);
    assertThat(informers.beforeCaching(deployments, tombstone)).isSameAs(tombstone);
  }

  @Test
  void theCacheKeepsOnlyTheOperatorsOwnEntryForTheObjectWithItsFieldsDeflated() {
    ApiClient client = new ApiClient().setReadTimeout(0);
    LenientJson.install(client);
    Gson gson = client.getJSON().getGson();
    Informers informers = new Informers(new SharedInformerFactory(client), client, List.of(), "steward",
        Duration.ofSeconds(15), new SimpleMeterRegistry());
    V1Deployment deployment = gson.fromJson("""
        {"metadata":{"name":"shop","managedFields":[
          {"manager":"steward","operation":"Update","fieldsType":"FieldsV1","fieldsV1":%s},
          {"manager":"steward","operation":"Update","subresource":"status","fieldsV1":{"f:status":{}}},
          {"manager":"kube-controller-manager","operation":"Update","fieldsV1":{"f:metadata":{}}}]}}
        """.formatted(OWN_FIELDS), V1Deployment.class);

    informers.keepOnlyOwnManagedFields(deployment);

    List<V1ManagedFieldsEntry> kept = deployment.getMetadata().getManagedFields();
    assertThat(kept).singleElement().satisfies(entry -> {
      assertThat(entry.getManager()).isEqualTo("steward");
      assertThat(entry.getSubresource()).isNull();
      assertThat(entry.getFieldsV1()).isInstanceOf(DeflatedJson.class);
      assertThat(Informers.fieldsV1(entry, gson)).isEqualTo(JsonParser.parseString(OWN_FIELDS));
    });
    // Deflated or a tree, as an API server's response has it, reads the same.
    V1ManagedFieldsEntry decoded = new V1ManagedFieldsEntry().fieldsV1(gson.fromJson(OWN_FIELDS, Object.class));
    assertThat(Informers.fieldsV1(decoded, gson)).isEqualTo(JsonParser.parseString(OWN_FIELDS));
    assertThat(gson.toJson(deployment)).doesNotContain("managedFields");
  }

  /**
   * Buckets taken together are listed together, and their work is queued once all have listed. A
   * bucket let go before it listed never will: the others' work must not wait for it for ever.
   */
  @Test
  void bucketsStartedTogetherAreReadyOnceEachHasListedOrBeenLetGo() throws Exception {
    ApiClient unreachable = new ApiClient().setBasePath("https://127.0.0.1:1").setReadTimeout(0);
    Informers informers = new Informers(new SharedInformerFactory(unreachable), unreachable, List.of(), "steward",
        Duration.ofSeconds(15), new SimpleMeterRegistry(), 32);
    informers.of(new WatchedKind<>(V1Deployment.class, V1DeploymentList.class, "apps", "v1", "deployments",
        "Deployment", "", false));
    informers.start();
    try {
      CompletableFuture<Void> ready = informers.startBuckets(Set.of(1, 2));
      assertThat(informers.bucketGroups()).containsExactly("1,2");

      informers.stopBucket(1);
      Thread.sleep(200);
      assertThat(ready).as("bucket 2 is still cached here and has not listed").isNotDone();
      informers.stopBucket(2);
      ready.get(5, TimeUnit.SECONDS);
      assertThat(informers.bucketGroups()).isEmpty();
    } finally {
      informers.stop();
    }
  }
}
