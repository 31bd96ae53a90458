package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How the informers list, as the API server's audit log records it (their user's watches are logged
 * too, each once it has ended): one streaming watch where the
 * server offers it, the same watch going on after the initial events; pages of {@value
 * StreamingListerWatcher#PAGE} where the server refuses it (its WatchList gate off) or streaming is
 * switched off; never one list of everything.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class StreamingListsIT {
  /** More than two pages. */
  private static final int CONFIG_MAPS = 1_100;
  private static final WatchedKind<V1ConfigMap, V1ConfigMapList> KIND = new WatchedKind<>(V1ConfigMap.class,
      V1ConfigMapList.class, "", "v1", "configmaps", "ConfigMap", "streaming-lists-it=yes", false);

  @Test
  void aStreamingWatchIsTheListAndGoesOnAsTheWatch(LocalCluster cluster, TestNamespace namespace) throws Exception {
    String ns = namespace.sibling(cluster, "streamed");
    createConfigMaps(cluster.adminClient(), ns);
    String userAgent = "streaming-lists-" + ns;
    long mark = cluster.auditLog().size();

    Informers informers = informers(cluster, ns, userAgent, true);
    KindInformer<V1ConfigMap> configMaps = informers.of(KIND);
    informers.start();
    try {
      informers.synced().get(60, TimeUnit.SECONDS);
      assertThat(configMaps.list()).as("cached once synced").hasSize(CONFIG_MAPS);
      new CoreV1Api(cluster.adminClient()).createNamespacedConfigMap(ns, configMap(ns, "after-the-list")).execute();
      await().atMost(Duration.ofSeconds(10)).until(() -> configMaps.get(ns, "after-the-list") != null);
    } finally {
      informers.stop();
    }
    // The watch is logged once it has ended.
    await().atMost(Duration.ofSeconds(30)).until(() -> requestsBy(cluster, mark, userAgent).stream()
        .anyMatch(e -> "watch".equals(e.verb())));
    List<AuditLog.Entry> requests = requestsBy(cluster, mark, userAgent);
    assertThat(requests).as("lists").noneMatch(e -> "list".equals(e.verb()));
    assertThat(requests).as("watches: the streamed list, which went on as the watch").filteredOn(e -> "watch".equals(
        e.verb())).singleElement().satisfies(e -> assertThat(e.requestUri()).contains("sendInitialEvents=true")
            .contains("resourceVersionMatch=NotOlderThan").contains("allowWatchBookmarks=true"));
  }

  @Test
  void switchedOffTheInformersListPageByPage(LocalCluster cluster, TestNamespace namespace) throws Exception {
    String ns = namespace.sibling(cluster, "paged");
    createConfigMaps(cluster.adminClient(), ns);
    String userAgent = "paginated-lists-" + ns;
    long mark = cluster.auditLog().size();

    assertListedPageByPage(cluster, ns, userAgent, mark, false);
  }

  /** An API server with the WatchList gate off (1.27 to 1.31 and 1.33 by default) refuses the streaming watch. */
  @Test
  void whereTheServerRefusesStreamingTheInformersListPageByPage() throws Exception {
    try (LocalCluster old = LocalCluster.start(LocalCluster.Shape.API,
        Path.of("target", "local-cluster-watchlist-off"), List.of("WatchList=false"))) {
      String ns = "streaming-refused";
      new CoreV1Api(old.adminClient()).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(ns)))
          .execute();
      createConfigMaps(old.adminClient(), ns);
      String userAgent = "refused-lists-" + ns;
      long mark = old.auditLog().size();

      List<AuditLog.Entry> requests = assertListedPageByPage(old, ns, userAgent, mark, true);
      assertThat(requests).as("the refused streaming watch").filteredOn(e -> "watch".equals(e.verb())
          && e.requestUri().contains("sendInitialEvents=true")).singleElement()
          .satisfies(e -> assertThat(e.code()).isBetween(400, 499));
    }
  }

  private static List<AuditLog.Entry> assertListedPageByPage(LocalCluster cluster, String ns, String userAgent,
      long mark, boolean streamingLists) throws Exception {
    Informers informers = informers(cluster, ns, userAgent, streamingLists);
    KindInformer<V1ConfigMap> configMaps = informers.of(KIND);
    informers.start();
    try {
      informers.synced().get(60, TimeUnit.SECONDS);
      assertThat(configMaps.list()).as("cached once synced").hasSize(CONFIG_MAPS);
      List<AuditLog.Entry> requests = requestsBy(cluster, mark, userAgent);
      List<AuditLog.Entry> lists = requests.stream().filter(e -> "list".equals(e.verb())).toList();
      assertThat(lists).as("lists of at most a page each").hasSize(3)
          .allSatisfy(e -> assertThat(e.requestUri()).contains("limit=" + StreamingListerWatcher.PAGE));
      assertThat(lists.subList(1, 3)).allSatisfy(e -> assertThat(e.requestUri()).contains("continue="));
      return requests;
    } finally {
      informers.stop();
    }
  }

  private static Informers informers(LocalCluster cluster, String ns, String userAgent, boolean streamingLists) {
    ApiClient client = LocalCluster.clientFor(cluster.kubeconfigFor(LocalCluster.WATCHES_AUDITED), userAgent)
        .setReadTimeout(0);
    return new Informers(new SharedInformerFactory(client), client, List.of(ns), "steward", Duration.ofSeconds(15),
        new SimpleMeterRegistry(), null, streamingLists);
  }

  private static List<AuditLog.Entry> requestsBy(LocalCluster cluster, long mark, String userAgent) {
    return cluster.auditLog().entriesAfter(mark, e -> e.fromUserAgentStartingWith(userAgent)
        && "configmaps".equals(e.resource()));
  }

  private static void createConfigMaps(ApiClient admin, String ns) throws Exception {
    CoreV1Api core = new CoreV1Api(admin);
    ExecutorService creators = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> created = new ArrayList<>();
      for (int i = 0; i < CONFIG_MAPS; i++) {
        String name = "config-" + i;
        created.add(creators.submit(() -> core.createNamespacedConfigMap(ns, configMap(ns, name)).execute()));
      }
      for (Future<?> done : created) {
        done.get(60, TimeUnit.SECONDS);
      }
    } finally {
      creators.shutdownNow();
    }
  }

  private static V1ConfigMap configMap(String ns, String name) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().namespace(ns).name(name)
        .labels(Map.of("streaming-lists-it", "yes"))).data(Map.of("value", name));
  }
}
