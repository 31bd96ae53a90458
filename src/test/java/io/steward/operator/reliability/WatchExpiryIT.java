package io.steward.operator.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.util.PatchUtils;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.FaultProxy;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Watch expiry and compaction: Steward is frozen (SIGSTOP, and cut off so no event waits for it in a
 * socket buffer) while its WebApps, their Deployments and
 * Services and many unrelated Services change (some Deployments and Services deleted: the re-list
 * must take them out of the cache, so that Steward creates them again), etcd is compacted to the newest revision and the API
 * server restarted (as in a rolling upgrade), so the watches Steward resumes start from a revision
 * the server no longer has. Steward must notice
 * (a fresh list) and miss nothing. The periodic resync is off, so only the watches and the lists they
 * fall back to can bring each change to Steward: a change lost with an expired watch stays lost and
 * the cycle fails. Re-lists are counted from the audit log (the operator's user is one whose
 * watches it logs, so streamed lists count); a run without any would not have tested expiry, and
 * fails too.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class WatchExpiryIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final int CYCLES = FULL ? 20 : 3;
  private static final int WEBAPPS = FULL ? 200 : 40;
  private static final int FILLER_CHANGES = FULL ? 1_000 : 200;
  private static final int FILLER_SERVICES = 20;
  private static final Set<String> WATCHED = Set.of("webapps", "deployments", "services");
  private static final String SCENARIO = "watch expiry (frozen operator, etcd compacted, API server restarted)";

  @AfterAll
  static void writeReport() {
    REPORT.write(Path.of("target", "reliability"));
  }

  @Test
  void nothingIsMissedWhenWatchesExpireAndEtcdIsCompacted(LocalCluster cluster) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String suffix = Long.toString(System.nanoTime() % 1_000_000, 36);
    String ns = "expiry-" + suffix;
    String filler = "expiry-filler-" + suffix;
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    for (String name : List.of(ns, filler)) {
      core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name))).execute();
    }
    for (int i = 0; i < FILLER_SERVICES; i++) {
      core.createNamespacedService(filler, new V1Service().metadata(new V1ObjectMeta().name("filler-" + i))
          .spec(new V1ServiceSpec().ports(List.of(new V1ServicePort().port(80))))).execute();
    }
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < WEBAPPS; i++) {
      names.add("app-" + i);
      webApps.create("app-" + i, WebApps.spec("nginx:1.27", 1, 80));
    }

    String userAgent;
    List<Instant> cycles = new ArrayList<>();
    try (FaultProxy proxy = new FaultProxy(cluster.apiServerPort());
        OperatorProcess operator = OperatorProcess.start(cluster.kubeconfigVia(LocalCluster.WATCHES_AUDITED, proxy.url()),
            "expiry-" + suffix, Map.of("steward.namespaces", ns, "steward.leader-election.enabled", "false",
                "steward.resync-period", "1h"), OperatorProcess.TEST_JVM_OPTIONS)) {
      userAgent = operator.userAgent();
      await().atMost(Duration.ofMinutes(2)).until(operator::isReady);
      Convergence.await(webApps, apps, ns, Set.of(), Duration.ofMinutes(3));
      List<Long> convergeMillis = new ArrayList<>();
      for (int cycle = 0; cycle < CYCLES; cycle++) {
        Instant frozen = Instant.now();
        cycles.add(frozen);
        FencingIT.signal(operator, "STOP");
        // Nothing the server sends meanwhile may wait in a socket buffer for Steward to read later.
        proxy.mode(FaultProxy.Mode.BLACKHOLE);
        String image = "nginx:1." + (100 + cycle);
        for (String name : names) {
          webApps.updateSpec(name, spec -> spec.withImage(image));
        }
        Set<String> deleted = new HashSet<>();
        for (int i = cycle % 3; i < WEBAPPS; i += 3) {
          scale(apps, cluster, ns, names.get(i), 7); // drift Steward must undo
          if (i % 2 == 0) {
            core.deleteNamespacedService(names.get(i), ns).execute(); // gone, Steward must re-create
            deleted.add(names.get(i));
          } else {
            // Gone too; the re-list hands its informer a tombstone, which its transform must let through.
            apps.deleteNamespacedDeployment(names.get(i), ns).execute();
          }
        }
        for (int i = 0; i < FILLER_CHANGES; i++) {
          annotate(core, cluster, filler, "filler-" + (i % FILLER_SERVICES), cycle + "-" + i);
        }
        long revision = compact(cluster.etcdUrl());
        // The API server's watch cache would still serve the old revisions from memory; restarted,
        // it starts from etcd's newest, and every watch Steward resumes is too old.
        cluster.restart(cluster.apiServer());
        proxy.resetConnections();
        proxy.mode(FaultProxy.Mode.PASS);
        FencingIT.signal(operator, "CONT");
        Instant resumed = Instant.now();

        Duration converged = Convergence.await(webApps, apps, ns, Set.of(), Duration.ofMinutes(2));
        await().atMost(Duration.ofMinutes(1)).until(() ->
            missing(names, core.listNamespacedService(ns).execute().getItems()).isEmpty()
                && missing(names, apps.listNamespacedDeployment(ns).execute().getItems()).isEmpty());
        convergeMillis.add(Duration.between(resumed, Instant.now()).toMillis());
        assertThat(operator.isRunning()).as("cycle %d: the operator survived", cycle).isTrue();
        assertThat(converged).as("cycle %d (compacted at revision %d)", cycle, revision).isNotNull();
      }
      REPORT.record(SCENARIO, "cycles / WebApps / unrelated Service changes per cycle",
          CYCLES + " / " + WEBAPPS + " / " + FILLER_CHANGES);
      REPORT.record(SCENARIO, "changes missed (cycles not converged within 2 min)", 0);
      REPORT.record(SCENARIO, "resume to all converged, ms (each)", convergeMillis);
    }
    // A streamed re-list is a watch, logged once it has ended: the operator has stopped now, so the
    // last cycle's are, and an earlier cycle's if the API server's restart ended them gracefully.
    String agent = userAgent;
    await().atMost(Duration.ofSeconds(30)).until(() -> relists(cluster.auditLog(), agent, cycles.get(0)) > 0);
    List<Long> relistsPerCycle = new ArrayList<>();
    for (int cycle = 0; cycle < cycles.size(); cycle++) {
      Instant until = cycle + 1 < cycles.size() ? cycles.get(cycle + 1) : Instant.MAX;
      relistsPerCycle.add(relists(cluster.auditLog(), agent, cycles.get(cycle))
          - (until == Instant.MAX ? 0 : relists(cluster.auditLog(), agent, until)));
    }
    long totalRelists = relists(cluster.auditLog(), agent, cycles.get(0));
    REPORT.record(SCENARIO, "re-lists by Steward per cycle (webapps, deployments, services), as logged",
        relistsPerCycle);
    REPORT.record(SCENARIO, "re-lists by Steward, total", totalRelists);
    assertThat(totalRelists).as("re-lists: none means no watch expired and expiry was not tested").isPositive();
  }

  private static void scale(AppsV1Api apps, LocalCluster cluster, String ns, String name, int replicas)
      throws ApiException {
    PatchUtils.patch(io.kubernetes.client.openapi.models.V1Deployment.class,
        () -> apps.patchNamespacedDeployment(name, ns, new V1Patch("{\"spec\":{\"replicas\":" + replicas + "}}"))
            .buildCall(null), V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, cluster.adminClient());
  }

  private static void annotate(CoreV1Api core, LocalCluster cluster, String ns, String name, String value)
      throws ApiException {
    PatchUtils.patch(V1Service.class, () -> core.patchNamespacedService(name, ns, new V1Patch(
            "{\"metadata\":{\"annotations\":{\"churn\":\"" + value + "\"}}}")).buildCall(null),
        V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, cluster.adminClient());
  }

  /** Of {@code names}, those no object in {@code present} is called. */
  private static List<String> missing(List<String> names, List<? extends KubernetesObject> present) {
    Set<String> found = present.stream().map(o -> o.getMetadata().getName()).collect(Collectors.toSet());
    return names.stream().filter(n -> !found.contains(n)).toList();
  }

  /**
   * The operator's lists of the kinds it watches received since {@code since}: streamed (a watch with
   * sendInitialEvents) or, where the API server refuses those, first pages.
   */
  private static long relists(AuditLog audit, String userAgent, Instant since) {
    return audit.entries(e -> WATCHED.contains(e.resource()) && e.fromUserAgentStartingWith(userAgent)
        && !e.received().isBefore(since) && (("watch".equals(e.verb()) && e.requestUri().contains("sendInitialEvents=true"))
            || ("list".equals(e.verb()) && !e.requestUri().contains("continue=")))).size();
  }

  /** Compacts etcd to its current revision (etcd's JSON gateway), returning that revision. */
  private static long compact(String etcdUrl) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    JsonObject range = JsonParser.parseString(http.send(HttpRequest.newBuilder(URI.create(etcdUrl + "/v3/kv/range"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"AA==\",\"limit\":1}")).build(),
        HttpResponse.BodyHandlers.ofString()).body()).getAsJsonObject();
    long revision = range.getAsJsonObject("header").get("revision").getAsLong();
    HttpResponse<String> compacted = http.send(HttpRequest.newBuilder(URI.create(etcdUrl + "/v3/kv/compaction"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"revision\":\"" + revision + "\",\"physical\":true}")).build(),
        HttpResponse.BodyHandlers.ofString());
    if (compacted.statusCode() != 200) {
      throw new IllegalStateException("etcd compaction at " + revision + " failed: " + compacted.body());
    }
    return revision;
  }
}
