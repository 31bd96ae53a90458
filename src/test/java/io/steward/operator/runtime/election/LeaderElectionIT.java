package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.support.Crds;
import io.steward.operator.support.LeadershipAudit;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several operator processes (the built jar, separate JVMs) against one cluster: exactly one
 * leads and only it writes, as the API server's audit log shows; a graceful stop hands over at
 * once (the Lease is released), a kill -9 within the lease duration.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class LeaderElectionIT {
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Duration RETRY = Duration.ofSeconds(1);
  private final List<OperatorProcess> processes = new ArrayList<>();

  @AfterEach
  void stopProcesses() {
    processes.forEach(OperatorProcess::close);
  }

  private OperatorProcess replica(LocalCluster cluster, String ns, String name) {
    return replica(cluster, name + "-" + ns, ns, LEASE, Duration.ofSeconds(4), RETRY);
  }

  /** A replica working in {@code ns}, with its Lease there and these timings; stopped after the test. */
  private OperatorProcess replica(LocalCluster cluster, String identity, String ns, Duration lease,
      Duration renewDeadline, Duration retry) {
    OperatorProcess process = OperatorProcess.start(cluster, identity, Map.of(
        "steward.namespaces", ns,
        "steward.leader-election.lease-namespace", ns,
        "steward.leader-election.lease-duration", lease.toSeconds() + "s",
        "steward.leader-election.renew-deadline", renewDeadline.toSeconds() + "s",
        "steward.leader-election.retry-period", retry.toSeconds() + "s"));
    processes.add(process);
    return process;
  }

  @Test
  void oneLeaderWritesAndHandsOverOnStopAndOnKill(LocalCluster cluster, TestNamespace namespace) throws Exception {
    String ns = namespace.name();
    Crds.installWebAppCrd(cluster.adminClient());
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());

    OperatorProcess a = replica(cluster, ns, "a");
    OperatorProcess b = replica(cluster, ns, "b");
    await().atMost(Duration.ofSeconds(90)).until(() -> a.isReady() && b.isReady());
    String first = await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> holder(leases, ns), h -> h != null && !h.isEmpty());
    OperatorProcess leader = first.equals(a.identity()) ? a : b;
    OperatorProcess standby = leader == a ? b : a;

    for (int i = 0; i < 3; i++) {
      webApps.create("app-" + i, WebApps.spec("nginx:1.27", 1, 80));
    }
    awaitAllReady(webApps, 3);
    assertThat(standby.actuator("leader").body()).contains("\"leading\":false");
    assertThat(leader.actuator("leader").body()).contains("\"leading\":true");

    // A holder renews without reading the Lease first: judged over several renewals.
    await().atMost(Duration.ofSeconds(30))
        .until(() -> leaseRequestsBy(cluster, ns, leader, Instant.MAX, "update").size() >= 8);

    // Graceful: SIGTERM releases the Lease, the standby takes over without waiting for expiry.
    Instant sigterm = Instant.now();
    assertThat(leader.terminate()).as("exit code after SIGTERM").isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> standby.identity().equals(holder(leases, ns)));
    Duration gracefulHandover = Duration.between(sigterm, Instant.now());
    webApps.create("after-stop", WebApps.spec("nginx:1.27", 1, null));
    awaitAllReady(webApps, 4);
    assertThat(gracefulHandover).as("graceful hand-over").isLessThan(LEASE);
    assertThat(handovers(standby, "released")).as("graceful hand-overs the standby saw").isEqualTo(1.0);
    assertThat(handovers(standby, "expired")).isZero();

    // Hard: kill -9 the new leader; a fresh standby takes over once the Lease expires.
    OperatorProcess c = replica(cluster, ns, "c");
    await().atMost(Duration.ofSeconds(90)).until(c::isReady);
    Instant kill = Instant.now();
    standby.kill();
    await().atMost(LEASE.multipliedBy(3)).until(() -> c.identity().equals(holder(leases, ns)));
    Duration hardHandover = Duration.between(kill, Instant.now());
    webApps.create("after-kill", WebApps.spec("nginx:1.27", 1, null));
    awaitAllReady(webApps, 5);
    assertThat(hardHandover).as("hand-over after kill -9").isLessThan(LEASE.plus(RETRY).plus(Duration.ofSeconds(5)));
    // Seen by the replica that took over, whose predecessor is gone with its own counters.
    assertThat(handovers(c, "expired")).as("hand-overs from an expired term that c saw").isEqualTo(1.0);
    assertThat(handovers(c, "released")).isZero();

    LeadershipAudit audit = new LeadershipAudit(cluster.auditLog(), ns, "steward-leader");
    assertThat(audit.terms()).extracting(LeadershipAudit.Term::userAgent)
        .containsExactly(leader.userAgent(), standby.userAgent(), c.userAgent());
    assertThat(audit.writesByNonLeaders(ns)).as("writes by a replica that did not hold the Lease").isEmpty();
    assertThat(audit.writesBy(standby.userAgent(), ns)).as("the second leader worked").isNotEmpty();
    assertThat(audit.writesBy(c.userAgent(), ns)).as("the third leader worked").isNotEmpty();
    Instant firstTake = audit.terms().get(0).start();
    List<AuditLog.Entry> reads = leaseRequestsBy(cluster, ns, leader, sigterm, "get").stream()
        .filter(e -> !e.received().isBefore(firstTake)).toList();
    int writes = leaseRequestsBy(cluster, ns, leader, sigterm, "update").size();
    // Each renewal abandoned on a slow machine makes the next attempt read; a read before every
    // renewal is what this rules out.
    assertThat(reads).as("the first leader's reads of the Lease from its take to its stop, beside %d writes", writes)
        .hasSizeLessThanOrEqualTo(writes / 2);
    System.out.printf("leader-election: graceful hand-over %d ms, after kill -9 %d ms (lease %s); "
        + "the first leader read the Lease %d times and wrote it %d times while leading%n",
        gracefulHandover.toMillis(), hardHandover.toMillis(), LEASE, reads.size(), writes);
  }

  /**
   * A replica that finds no leader leads as soon as its take of the Lease is granted: its first write
   * follows the take by much less than a retry period (client-java's elector reports its own take
   * only after sleeping one).
   */
  @Test
  void aReplicaThatTakesAFreeLeaseLeadsAtOnce(LocalCluster cluster, TestNamespace namespace) throws Exception {
    String ns = namespace.sibling(cluster, "alone"); // no Lease yet, whichever test ran first
    Crds.installWebAppCrd(cluster.adminClient());
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    webApps.create("waiting", WebApps.spec("nginx:1.27", 1, 80));
    Duration retry = Duration.ofSeconds(5);
    OperatorProcess alone = replica(cluster, "alone-" + ns, ns, Duration.ofSeconds(15), Duration.ofSeconds(10), retry);
    awaitAllReady(webApps, 1);

    LeadershipAudit audit = new LeadershipAudit(cluster.auditLog(), ns, "steward-leader");
    Instant took = audit.terms().get(0).start();
    Duration idle = audit.firstWriteAfter(alone.userAgent(), took, ns);
    assertThat(idle).as("from taking the free Lease to the first write (retry period %s)", retry)
        .isLessThan(retry.dividedBy(2));
    System.out.printf("leader-election: free Lease taken to the first write %d ms (retry period %s)%n",
        idle.toMillis(), retry);
  }

  /**
   * A leader stopped moments after its campaign took a released Lease, before client-java's elector
   * confirmed the take (it polls once per retry period), still gives the Lease back: the elector
   * releases only a Lease it saw this replica hold, and without the give-back every standby would
   * wait a lease duration.
   */
  @Test
  void aLeaderStoppedBeforeTheElectorConfirmedItsTakeStillGivesTheLeaseBack(LocalCluster cluster,
      TestNamespace namespace) throws Exception {
    String ns = namespace.sibling(cluster, "quick-stop");
    Crds.installWebAppCrd(cluster.adminClient());
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    OffsetDateTime now = OffsetDateTime.now();
    leases.createNamespacedLease(ns, new V1Lease().metadata(new V1ObjectMeta().name("steward-leader"))
        .spec(new V1LeaseSpec().holderIdentity("an-earlier-leader").leaseDurationSeconds(60)
            .acquireTime(now).renewTime(now).leaseTransitions(3))).execute();
    OperatorProcess replica = replica(cluster, "quick-stop-" + ns, ns, Duration.ofSeconds(60), Duration.ofSeconds(50),
        Duration.ofSeconds(20));
    await().atMost(Duration.ofSeconds(90)).until(replica::isReady);

    V1Lease held = leases.readNamespacedLease("steward-leader", ns).execute();
    held.getSpec().holderIdentity(null);
    leases.replaceNamespacedLease("steward-leader", ns, held).execute(); // the earlier leader released it
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> replica.identity().equals(holder(leases, ns)));
    assertThat(replica.terminate()).as("exit code after SIGTERM").isZero();

    V1LeaseSpec after = leases.readNamespacedLease("steward-leader", ns).execute().getSpec();
    assertThat(after.getHolderIdentity()).as("the Lease's holder after the stop").isNullOrEmpty();
    assertThat(after.getLeaseTransitions()).as("transitions kept").isEqualTo(4);
  }

  /** The replica's requests of {@code verb} on the leader Lease received before {@code before}. */
  private static List<AuditLog.Entry> leaseRequestsBy(LocalCluster cluster, String ns, OperatorProcess replica,
      Instant before, String verb) {
    return cluster.auditLog().entries(e -> "leases".equals(e.resource()) && "steward-leader".equals(e.name())
        && ns.equals(e.namespace()) && verb.equals(e.verb()) && e.fromUserAgentStartingWith(replica.userAgent())
        && e.received().isBefore(before));
  }

  /** {@code steward_leader_handovers_total{reason}} on the replica's Prometheus page. */
  private static double handovers(OperatorProcess replica, String reason) {
    String prefix = "steward_leader_handovers_total{name=\"steward-leader\",reason=\"" + reason + "\"} ";
    return replica.actuator("prometheus").body().lines().filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()))).findFirst().orElseThrow();
  }

  private static String holder(CoordinationV1Api leases, String ns) throws ApiException {
    V1Lease lease = leases.readNamespacedLease("steward-leader", ns).execute();
    return lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  private static void awaitAllReady(WebApps webApps, int count) {
    await().atMost(Duration.ofSeconds(90)).ignoreExceptions().untilAsserted(() -> {
      List<WebApp> all = webApps.list();
      assertThat(all).hasSize(count);
      assertThat(all).allSatisfy(w -> assertThat(w.getStatus().phase()).isEqualTo(Phase.Ready));
    });
  }
}
