package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.operator.support.Crds;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppList;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * Measures the two ways a sharded replica can have the API server send it only its share of the
 * WebApps, side by side on one API server: Steward's label selector over its buckets
 * ({@code steward.io/bucket in (…)}), and Kubernetes' alpha server-side sharding
 * ({@code shardSelector=shardRange(object.metadata.uid, …)}, the {@code ShardedListAndWatch} gate,
 * which the local cluster enables). Each of three shards lists its share both ways, and the whole
 * collection is listed for reference; the figures are the API server's CPU and the time per list.
 *
 * <p>Checked first, so the figures are of filters that work: every object a shard list returns
 * hashes into its range (FNV-1a 64 of the UID, as the API server
 * documents), the three shards together return every WebApp once, and each label list returns exactly
 * the WebApps of its buckets. A plain {@code mvn verify} runs it with few WebApps; {@code -Pbench}
 * with many, writing {@code target/bench/shard-selector.md}.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class ShardSelectorIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.bench.mode"));
  private static final int WEBAPPS = FULL ? 3000 : 300;
  private static final int REPEATS = FULL ? 20 : 3;
  /** Steward's default bucket count, with which the WebApps here are labelled as Steward would. */
  private static final int BUCKETS = new io.steward.operator.StewardProperties.Sharding().getBuckets();
  private static final int SHARDS = 3;
  private static final BigInteger HASH_SPACE = BigInteger.ONE.shiftLeft(64);

  private record Listed(Set<String> names, Set<String> uids, String shardInfo, int bytes) {}

  private record Figure(String how, int shard, int objects, int bytes, double millisPerList, double apiServerCpuMsPerList) {}

  @Test
  void listsEachShardServerSideByLabelAndByUidRange(LocalCluster cluster, TestNamespace namespace) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String ns = namespace.name();
    createLabelledWebApps(cluster.adminClient(), ns);
    ApiClient client = cluster.adminClient();
    String collection = "/apis/steward.io/v1alpha1/namespaces/" + ns + "/webapps";

    Listed all = list(client, collection, Map.of());
    assertThat(all.names()).hasSize(WEBAPPS);
    Set<String> seenByShards = new HashSet<>();
    boolean echoed = false;
    List<Figure> figures = new ArrayList<>();
    figures.add(measure(cluster, client, collection, Map.of(), all, "no selector (everything)", -1));
    for (int shard = 0; shard < SHARDS; shard++) {
      String range = shardRange(shard);
      Listed byUid = list(client, collection, Map.of("shardSelector", range));
      // Not echoed for custom resources: their lists are unstructured, without the ListMeta that carries it.
      echoed = echoed || byUid.shardInfo() != null;
      BigInteger low = bound(shard);
      BigInteger high = bound(shard + 1);
      for (String uid : byUid.uids()) {
        BigInteger hash = new BigInteger(Long.toUnsignedString(BucketHash.fnv1a64(uid)));
        assertThat(hash.compareTo(low) >= 0 && hash.compareTo(high) < 0)
            .as("FNV-1a 64 of UID %s within shard %d's range", uid, shard).isTrue();
      }
      assertThat(Collections.disjoint(byUid.names(), seenByShards))
          .as("shard %d shares no WebApp with the shards before it", shard).isTrue();
      seenByShards.addAll(byUid.names());

      Set<Integer> buckets = bucketsOf(shard);
      String labelSelector = BucketHash.LABEL + " in (" + buckets.stream().sorted().map(String::valueOf)
          .collect(Collectors.joining(",")) + ")";
      Listed byLabel = list(client, collection, Map.of("labelSelector", labelSelector));
      assertThat(byLabel.names()).as("the label list of shard %d: exactly the WebApps of its buckets", shard)
          .isEqualTo(all.names().stream().filter(name -> buckets.contains(BucketHash.bucketOf(ns, name, BUCKETS)))
              .collect(Collectors.toSet()));

      figures.add(measure(cluster, client, collection, Map.of("labelSelector", labelSelector), byLabel,
          "label selector, buckets " + labelSelector.substring(labelSelector.indexOf('(')), shard));
      figures.add(measure(cluster, client, collection, Map.of("shardSelector", range), byUid,
          "shardSelector " + range, shard));
    }
    assertThat(seenByShards).as("the three UID ranges together cover every WebApp").isEqualTo(all.names());
    write(figures, echoed);
  }

  /** Each WebApp carries the bucket label a sharded replica would have put on it. */
  private static void createLabelledWebApps(ApiClient client, String ns) throws Exception {
    GenericKubernetesApi<WebApp, WebAppList> api = new GenericKubernetesApi<>(WebApp.class, WebAppList.class,
        WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL, client);
    ExecutorService creators = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> created = new ArrayList<>();
      for (int i = 0; i < WEBAPPS; i++) {
        String name = "app-" + i;
        Map<String, String> labels = Map.of(BucketHash.LABEL, Integer.toString(BucketHash.bucketOf(ns, name, BUCKETS)));
        created.add(creators.submit(() -> api.create(new WebApp()
            .metadata(new V1ObjectMeta().name(name).namespace(ns).labels(labels))
            .spec(WebApps.spec("nginx:1.27", 1, 80))).throwsApiException()));
      }
      for (Future<?> future : created) {
        future.get();
      }
    } finally {
      creators.shutdown();
    }
  }

  /** Shard {@code shard} of {@link #SHARDS}: an equal part of the 64-bit hash space, start included. */
  private static String shardRange(int shard) {
    return "shardRange(object.metadata.uid, '" + hex(bound(shard)) + "', '" + hex(bound(shard + 1)) + "')";
  }

  private static BigInteger bound(int shard) {
    return HASH_SPACE.multiply(BigInteger.valueOf(shard)).divide(BigInteger.valueOf(SHARDS));
  }

  /** 16 hex digits, or 17 for the end of the space, as the API server expects. */
  private static String hex(BigInteger value) {
    String digits = value.toString(16);
    return "0x" + "0".repeat(Math.max(0, 16 - digits.length())) + digits;
  }

  /** The buckets of shard {@code shard}, as contiguous a split of the buckets as the UID ranges are of the hash. */
  private static Set<Integer> bucketsOf(int shard) {
    return IntStream.range(0, BUCKETS).filter(b -> b * SHARDS / BUCKETS == shard).boxed().collect(Collectors.toSet());
  }

  /** Times {@code query}'s list, which {@code checked} already made once, so the timed lists find it warm. */
  private Figure measure(LocalCluster cluster, ApiClient client, String collection, Map<String, String> query,
      Listed checked, String how, int shard) throws IOException {
    long pid = cluster.apiServer().pid();
    double cpuBefore = ProcStats.cpuSeconds(pid);
    long start = System.nanoTime();
    for (int i = 0; i < REPEATS; i++) {
      list(client, collection, query);
    }
    double millis = (System.nanoTime() - start) / 1e6 / REPEATS;
    double cpuMillis = (ProcStats.cpuSeconds(pid) - cpuBefore) * 1000 / REPEATS;
    return new Figure(how, shard, checked.names().size(), checked.bytes(), millis, cpuMillis);
  }

  /** One list, sent as client-java's own lists are, with query parameters its generated API lacks. */
  private static Listed list(ApiClient client, String collection, Map<String, String> query) throws IOException {
    StringBuilder url = new StringBuilder(client.getBasePath()).append(collection);
    String separator = "?";
    for (Map.Entry<String, String> parameter : query.entrySet()) {
      url.append(separator).append(parameter.getKey()).append('=')
          .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8));
      separator = "&";
    }
    try (Response response = client.getHttpClient().newCall(new Request.Builder().url(url.toString()).get().build())
        .execute()) {
      String body = response.body() == null ? "" : response.body().string();
      if (!response.isSuccessful()) {
        throw new AssertionError("GET " + url + " answered " + response.code() + ": " + body);
      }
      JsonObject list = JsonParser.parseString(body).getAsJsonObject();
      Set<String> names = new HashSet<>();
      Set<String> uids = new HashSet<>();
      JsonArray items = list.getAsJsonArray("items");
      for (JsonElement item : items) {
        JsonObject metadata = item.getAsJsonObject().getAsJsonObject("metadata");
        names.add(metadata.get("name").getAsString());
        uids.add(metadata.get("uid").getAsString());
      }
      JsonObject listMeta = list.getAsJsonObject("metadata");
      String shardInfo = listMeta != null && listMeta.has("shardInfo")
          ? listMeta.getAsJsonObject("shardInfo").get("selector").getAsString() : null;
      return new Listed(names, uids, shardInfo, body.length());
    }
  }

  private static void write(List<Figure> figures, boolean echoed) throws IOException {
    StringBuilder md = new StringBuilder("# Server-side filters for a shard's WebApps\n\n")
        .append(WEBAPPS).append(" WebApps, 3 shards, ").append(REPEATS).append(" lists of each kind, one after another;")
        .append(" API server CPU from /proc. The shard lists' metadata.shardInfo: ")
        .append(echoed ? "echoed" : "absent (custom resources)").append(".\n\n")
        .append("| list | shard | WebApps returned | response bytes | ms per list | API server CPU ms per list |\n")
        .append("| --- | --- | --- | --- | --- | --- |\n");
    for (Figure f : figures) {
      md.append("| ").append(f.how()).append(" | ").append(f.shard() < 0 ? "all" : Integer.toString(f.shard()))
          .append(" | ").append(f.objects()).append(" | ").append(f.bytes())
          .append(" | ").append(String.format("%.1f", f.millisPerList()))
          .append(" | ").append(String.format("%.1f", f.apiServerCpuMsPerList())).append(" |\n");
    }
    Path out = Path.of("target", "bench");
    Files.createDirectories(out);
    Files.writeString(out.resolve("shard-selector.md"), md);
    System.out.println(md);
  }
}
