package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.informer.cache.DeltaFIFO;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
}
