package io.steward.operator.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.support.BucketAudit;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A switch between leader mode and sharded mode made as a Deployment rollout makes it: replicas of
 * the new mode start while those of the old one still run, and the old ones stop one by one. The
 * two modes keep separate Leases, so nothing but the mode lock stops a leader and sharded replicas
 * from writing the same WebApps side by side. Judged from the audit log: every write to a WebApp,
 * its status, a Deployment or a Service must come from the object's one writer at that instant,
 * the leader while no bucket Lease of the object's bucket is held, or the bucket's holder while no
 * leader holds its Lease. WebApps change throughout.
 */
@LocalClusterTest
class ModeSwitchIT {
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final int BUCKETS = 32;
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Map<String, String> SHORT_LEASE = Map.of("steward.leader-election.lease-duration", "6s",
      "steward.leader-election.renew-deadline", "4s", "steward.leader-election.retry-period", "1s");

  private static LocalCluster cluster;
  private static CoordinationV1Api leases;
  private final List<OperatorProcess> processes = new ArrayList<>();

  @BeforeAll
  static void installCrdOn(LocalCluster localCluster) {
    cluster = localCluster;
    leases = new CoordinationV1Api(cluster.adminClient());
    Crds.installWebAppCrd(cluster.adminClient());
  }

  @AfterEach
  void stopAll() {
    FencingIT.closeAll(processes);
  }

  @AfterAll
  static void writeReport() {
    REPORT.write(Path.of("target", "reliability"));
  }

  /**
   * A leader and its standby run; two sharded replicas start beside them and take no bucket while
   * the leader lives; the leader and then the standby stop, and the sharded replicas take over.
   */
  @Test
  void aRollingSwitchToShardedModeNeverWritesBesideTheLeader() throws Exception {
    String scenario = "mode switch: leader -> sharded, rolling";
    String ns = namespace("to-sharded");
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    List<String> names = createWebApps(webApps);
    OperatorProcess leader = replica(ns, "leader-a", false);
    awaitLeading(ns, leader);
    OperatorProcess standby = replica(ns, "leader-b", false);
    long heldMillis;
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(50), 1_000_000, 41)) {
      OperatorProcess shardA = replica(ns, "shard-a", true);
      OperatorProcess shardB = replica(ns, "shard-b", true);
      await().atMost(Duration.ofMinutes(2)).until(() -> shardA.isReady() && shardB.isReady() && standby.isReady());
      // Long enough for the sharded replicas to have taken every bucket, were they free to.
      Thread.sleep(LEASE.multipliedBy(2).toMillis());
      assertThat(heldBuckets(ns)).as("bucket Leases held while a leader leads").isEmpty();
      assertThat(leader.terminate()).as("exit code of the leader after SIGTERM").isZero();
      Thread.sleep(LEASE.toMillis());
      assertThat(standby.terminate()).as("exit code of the standby after SIGTERM").isZero();
      long stopped = System.nanoTime();
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> heldBuckets(ns).values().stream().collect(Collectors.toSet())
              .equals(Set.of(shardA.identity(), shardB.identity())) && heldBuckets(ns).size() == BUCKETS);
      heldMillis = (System.nanoTime() - stopped) / 1_000_000;
      Thread.sleep(2_000); // changes made under the sharded replicas alone
    }
    judge(scenario, ns, webApps);
    REPORT.record(scenario, "last leader-mode replica's SIGTERM to all 32 buckets held, ms", heldMillis);
  }

  /**
   * Two sharded replicas hold every bucket; a leader-mode replica starts beside them and does not
   * lead while they do; they stop, and it leads.
   */
  @Test
  void aRollingSwitchToLeaderModeNeverWritesBesideTheShards() throws Exception {
    String ns = namespace("to-leader");
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    List<String> names = createWebApps(webApps);
    OperatorProcess shardA = replica(ns, "shard-a", true);
    OperatorProcess shardB = replica(ns, "shard-b", true);
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
        .until(() -> heldBuckets(ns).size() == BUCKETS);
    long ledMillis;
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(50), 1_000_000, 42)) {
      OperatorProcess leader = replica(ns, "leader-a", false);
      await().atMost(Duration.ofMinutes(2)).until(leader::isReady);
      Thread.sleep(LEASE.multipliedBy(2).toMillis());
      assertThat(leaderLeaseHolder(ns)).as("the leader Lease while sharded replicas hold buckets")
          .isNotEqualTo(leader.identity());
      assertThat(shardA.terminate()).as("exit code of %s after SIGTERM", shardA.identity()).isZero();
      assertThat(shardB.terminate()).as("exit code of %s after SIGTERM", shardB.identity()).isZero();
      long stopped = System.nanoTime();
      awaitLeading(ns, leader);
      ledMillis = (System.nanoTime() - stopped) / 1_000_000;
      Thread.sleep(2_000); // changes made under the leader alone
    }
    String scenario = "mode switch: sharded -> leader, rolling";
    judge(scenario, ns, webApps);
    REPORT.record(scenario, "last sharded replica's SIGTERM to the leader's Lease, ms", ledMillis);
  }

  private void judge(String scenario, String ns, WebApps webApps) throws Exception {
    Convergence.await(webApps, new AppsV1Api(cluster.adminClient()), ns, Set.of(), Duration.ofMinutes(3));
    BucketAudit audit = new BucketAudit(cluster.auditLog(), ns, ns, BUCKETS, LEASE);
    List<AuditLog.Entry> beside = audit.writesBesideTheOtherMode();
    Map<String, Long> writes = audit.objectWrites().stream().collect(Collectors.groupingBy(
        e -> e.userAgent().substring("steward/".length()), TreeMap::new, Collectors.counting()));
    REPORT.record(scenario, "successful writes per replica", writes);
    REPORT.record(scenario, "writes not by the object's one writer (leader or bucket holder) then", beside.size());
    assertThat(writes.keySet()).as("both modes wrote").anyMatch(w -> w.startsWith("leader-"))
        .anyMatch(w -> w.startsWith("shard-"));
    assertThat(beside).as("writes not by the object's one writer then").isEmpty();
  }

  private OperatorProcess replica(String ns, String name, boolean sharded) {
    Map<String, String> properties = new LinkedHashMap<>(Map.of("steward.namespaces", ns,
        "steward.leader-election.lease-namespace", ns, "steward.sharding.enabled", Boolean.toString(sharded)));
    properties.putAll(SHORT_LEASE);
    OperatorProcess process = OperatorProcess.start(cluster.kubeconfigFor("steward-operator"), name + "-" + ns,
        properties, OperatorProcess.TEST_JVM_OPTIONS);
    processes.add(process);
    return process;
  }

  private static void awaitLeading(String ns, OperatorProcess leader) {
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
        .until(() -> leader.identity().equals(leaderLeaseHolder(ns)));
  }

  private static String leaderLeaseHolder(String ns) throws ApiException {
    try {
      V1Lease lease = leases.readNamespacedLease("steward-leader", ns).execute();
      return lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null ? ""
          : lease.getSpec().getHolderIdentity();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return "";
      }
      throw e;
    }
  }

  /** Bucket Lease name to holder, for those naming one. */
  private static Map<String, String> heldBuckets(String ns) throws ApiException {
    Map<String, String> held = new TreeMap<>();
    for (V1Lease lease : leases.listNamespacedLease(ns).labelSelector("steward.io/shard-lease=bucket").execute()
        .getItems()) {
      String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
      if (holder != null && !holder.isEmpty()) {
        held.put(lease.getMetadata().getName(), holder);
      }
    }
    return held;
  }

  private static String namespace(String scenario) throws ApiException {
    String name = "mode-" + scenario + "-" + Long.toString(System.nanoTime() % 1_000_000, 36);
    new CoreV1Api(cluster.adminClient()).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name)))
        .execute();
    return name;
  }

  private static List<String> createWebApps(WebApps webApps) throws ApiException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      webApps.create("app-" + i, WebApps.spec("nginx:1.27", 1, 80));
      names.add("app-" + i);
    }
    return names;
  }
}
