package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.operator.runtime.cache.EventLines;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.cache.KindInformer;
import io.steward.operator.runtime.cache.WatchedKind;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Sharded mode's bucket informers against the API server: buckets taken together are listed and
 * watched together, and a group that keeps watching a bucket let go is replaced by one that does
 * not, without the handlers hearing of any object that did not change. Which selectors were listed
 * is judged from the API server's audit log.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class BucketInformersIT {
  private static final int BUCKETS = 32;
  private static final WatchedKind<V1ConfigMap, V1ConfigMapList> CONFIG_MAPS = new WatchedKind<>(V1ConfigMap.class,
      V1ConfigMapList.class, "", "v1", "configmaps", "ConfigMap", "", false);

  @Test
  void aGroupWatchingABucketLetGoIsReplacedWithoutTellingAnyoneOfUnchangedObjects(LocalCluster cluster,
      TestNamespace namespace) throws Exception {
    String ns = namespace.name();
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    for (int bucket = 1; bucket <= 3; bucket++) {
      for (int n = 0; n < 3; n++) {
        core.createNamespacedConfigMap(ns, configMap(ns, nameIn(ns, bucket, n), bucket, "v0")).execute();
      }
    }
    String userAgent = "bucket-informers-" + ns;
    ApiClient client = LocalCluster.clientFor(cluster.kubeconfigFor(LocalCluster.WATCHES_AUDITED), userAgent)
        .setReadTimeout(0);
    Informers informers = new Informers(new SharedInformerFactory(client), client, List.of(ns), "steward",
        Duration.ofSeconds(15), new SimpleMeterRegistry(), BucketInformers.UNBUCKETED);
    BucketInformers buckets = new BucketInformers(informers, BUCKETS);
    KindInformer<V1ConfigMap> configMaps = informers.of(CONFIG_MAPS);
    List<String> told = new CopyOnWriteArrayList<>();
    configMaps.addEventHandler(recording(told));
    long mark = cluster.auditLog().size();
    informers.start();
    try {
      informers.synced().get(30, TimeUnit.SECONDS);
      buckets.startBuckets(Set.of(1, 2, 3)).get(30, TimeUnit.SECONDS);
      assertThat(buckets.bucketGroups()).containsExactly("1,2,3");
      assertThat(ours(configMaps)).hasSize(9);
      // Listed means cached; the handlers may hear of the last adds a moment later.
      await().atMost(Duration.ofSeconds(10)).until(() -> told.size() >= 9);
      assertThat(told).hasSize(9).allMatch(event -> event.startsWith("add "));

      buckets.stopBucket(2);
      assertThat(told.subList(9, told.size())).as("bucket 2's objects leave this replica's view")
          .containsExactlyInAnyOrder("delete " + nameIn(ns, 2, 0) + " unknown", "delete " + nameIn(ns, 2, 1) + " unknown",
              "delete " + nameIn(ns, 2, 2) + " unknown");
      // Still watched by the group until it is replaced: its events must not reach the handlers.
      core.replaceNamespacedConfigMap(nameIn(ns, 2, 0), ns, configMap(ns, nameIn(ns, 2, 0), 2, "v1")).execute();
      core.replaceNamespacedConfigMap(nameIn(ns, 1, 0), ns, configMap(ns, nameIn(ns, 1, 0), 1, "v1")).execute();
      await().atMost(Duration.ofSeconds(10)).until(() -> told.contains("update " + nameIn(ns, 1, 0)));

      await().atMost(Duration.ofSeconds(30)).until(() -> buckets.bucketGroups().equals(List.of("1,3")));
      // A change made after the replacement took over arrives once, through it.
      core.replaceNamespacedConfigMap(nameIn(ns, 3, 0), ns, configMap(ns, nameIn(ns, 3, 0), 3, "v1")).execute();
      await().atMost(Duration.ofSeconds(10)).until(() -> told.contains("update " + nameIn(ns, 3, 0)));

      assertThat(told.subList(12, told.size())).as("what the handlers heard after bucket 2 was let go")
          .containsExactly("update " + nameIn(ns, 1, 0), "update " + nameIn(ns, 3, 0));
      assertThat(configMaps.size()).as("objects counted").isEqualTo(configMaps.list().size());
      assertThat(ours(configMaps)).hasSize(6).noneMatch(name -> BucketHash.bucketOf(ns, name, BUCKETS) == 2);
    } finally {
      informers.stop();
    }
    // Each group lists with a streaming watch, which the audit log has once it ended.
    await().atMost(Duration.ofSeconds(30)).until(() -> listedSelectors(cluster, mark, userAgent).size() >= 2);
    assertThat(listedSelectors(cluster, mark, userAgent)).as("the bucket selectors listed, as the API server saw them")
        .containsExactly(BucketHash.LABEL + " in (1,2,3)", BucketHash.LABEL + " in (1,3)");
  }

  /** The bucket selectors of the lists the informers made, streamed or not, in the order received. */
  private static List<String> listedSelectors(LocalCluster cluster, long mark, String userAgent) {
    return cluster.auditLog().entriesAfter(mark, e -> e.fromUserAgentStartingWith(userAgent)
            && "configmaps".equals(e.resource()) && ("list".equals(e.verb())
            || ("watch".equals(e.verb()) && e.requestUri().contains("sendInitialEvents=true")))).stream()
        .sorted(Comparator.comparing(AuditLog.Entry::received))
        .map(BucketInformersIT::labelSelector).filter(s -> s.startsWith(BucketHash.LABEL)).toList();
  }

  private static List<String> ours(KindInformer<V1ConfigMap> configMaps) {
    return configMaps.list().stream().map(c -> c.getMetadata().getName()).filter(n -> n.startsWith("config-")).toList();
  }

  private static String labelSelector(AuditLog.Entry entry) {
    String uri = entry.requestUri();
    int at = uri.indexOf("labelSelector=");
    if (at < 0) {
      return "";
    }
    String value = uri.substring(at + "labelSelector=".length());
    int end = value.indexOf('&');
    return URLDecoder.decode(end < 0 ? value : value.substring(0, end), StandardCharsets.UTF_8);
  }

  private static String nameIn(String namespace, int bucket, int n) {
    return IntStream.range(0, 100_000).mapToObj(i -> "config-" + i)
        .filter(name -> BucketHash.bucketOf(namespace, name, BUCKETS) == bucket).skip(n).findFirst().orElseThrow();
  }

  private static V1ConfigMap configMap(String namespace, String name, int bucket, String value) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().namespace(namespace).name(name)
        .labels(Map.of(BucketHash.LABEL, String.valueOf(bucket)))).data(Map.of("value", value));
  }

  /** Records the events of the test's own ConfigMaps (a namespace may have others, unlabelled). */
  private static ResourceEventHandler<V1ConfigMap> recording(List<String> told) {
    return new EventLines<>(configMap -> configMap.getMetadata().getName(), " unknown", event -> {
      if (event.contains(" config-")) {
        told.add(event);
      }
    });
  }
}
