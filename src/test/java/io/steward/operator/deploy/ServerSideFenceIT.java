package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.steward.operator.reliability.Churn;
import io.steward.operator.reliability.ReliabilityReport;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.FaultProxy;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The chart's server-side fence (a ValidatingAdmissionPolicy with the leader Lease as its parameter)
 * on the real API server: the chart's ServiceAccount, RBAC and fence are installed; each replica is
 * the built jar in its own JVM, authenticated by a TokenRequest token bound to a Pod object of its
 * name, as a pod's projected token is, with the chart's environment (identity = pod name) and short
 * lease settings. The leader is paused with SIGSTOP for longer than the lease while WebApps keep
 * changing, the standby takes over, and the old leader is resumed. With the operator's own guard
 * switched off, the API server's audit log must show every write the old leader sent after the new
 * leader's first Lease write refused, none stored.
 *
 * <p>Then with the guard on, as in production: the leader's requests are held or delayed in the
 * network (a {@code FaultProxy} in front of each replica) until after the takeover, and the fence
 * must refuse them when they arrive.
 *
 * <p>{@code -Dsteward.fence.withoutPolicy=true} installs everything but the fence: the same tests
 * then fail, listing the late writes the API server stored.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServerSideFenceIT {
  private static final boolean WITHOUT_POLICY = Boolean.getBoolean("steward.fence.withoutPolicy");
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Set<String> FENCED = Set.of("webapps", "deployments", "services");
  private static final String POLICY_MESSAGE = "does not hold the leader Lease";
  /** How long the API server may take to see a new Lease holder (its parameter informer's watch). */
  private static final Duration PROPAGATION = Duration.ofSeconds(1);
  /** How long a proxy keeps the API server's side of a connection open after the replica closed it. */
  private static final Duration LINGER = Duration.ofSeconds(3);
  /** How long the WebApps a held leader acts on exist: well inside its term, which it cannot renew. */
  private static final Duration VANISHING_FOR = Duration.ofSeconds(1);

  private static LocalCluster cluster;
  private static RenderedChart chart;
  private static String ns;
  private static final List<OperatorProcess> replicas = new ArrayList<>();
  /** Replicas whose exit is expected (faulted) or already reported. */
  private static final Set<String> exitAccountedFor = new HashSet<>();
  /** Replicas that exited before their fault for any reason but a lost term: a failure of the test. */
  private static final List<String> unexplainedExits = new ArrayList<>();
  private static final Map<String, V1Pod> pods = new LinkedHashMap<>();
  private static int nextReplica;

  @BeforeAll
  static void installChartWithoutItsDeployment(LocalCluster localCluster, TestNamespace namespace) throws Exception {
    cluster = localCluster;
    ns = namespace.name();
    // The ServiceAccount, RBAC and fence as the chart installs them; the replicas run here instead of its Deployment.
    chart = RenderedChart.installWithoutItsDeployment(cluster, ns, WITHOUT_POLICY
        ? Set.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding") : Set.of());
  }

  @AfterAll
  static void cleanUp() {
    replicas.forEach(OperatorProcess::close);
    if (cluster != null && chart != null) {
      DeployTesting.deleteClusterScoped(cluster, chart.manifests);
    }
  }

  @Test
  @Order(1)
  void policyTypeChecksWithoutWarnings() {
    if (WITHOUT_POLICY) {
      return;
    }
    DynamicKubernetesApi policies = new DynamicKubernetesApi("admissionregistration.k8s.io", "v1",
        "validatingadmissionpolicies", cluster.adminClient());
    String name = Manifests.name(chart.manifests.single("ValidatingAdmissionPolicy", "leader-fence"));
    JsonObject status = await().atMost(Duration.ofSeconds(30)).until(() -> {
      JsonObject raw = policies.get(name).throwsApiException().getObject().getRaw();
      return raw.has("status") && raw.getAsJsonObject("status").has("typeChecking") ? raw.getAsJsonObject("status") : null;
    }, s -> s != null);
    JsonObject typeChecking = status.getAsJsonObject("typeChecking");
    assertThat(typeChecking.has("expressionWarnings") ? typeChecking.getAsJsonArray("expressionWarnings").toString() : "")
        .as("type-checking warnings of %s against the Lease schema", name).isEmpty();
  }

  @Test
  @Order(2)
  void withoutALeaseTheFenceStandsAsideForEveryone() throws Exception {
    if (WITHOUT_POLICY) {
      return;
    }
    ApiClient replica = client(pod(replicaName(0)));
    CoordinationV1Api leases = new CoordinationV1Api(cluster.adminClient());
    // The fence is in force: with a Lease held by someone else, the replica's own pod-bound token is refused.
    leases.createNamespacedLease(ns, new V1Lease().metadata(new V1ObjectMeta().name(chart.leaseName()))
        .spec(new V1LeaseSpec().holderIdentity("someone-else"))).execute();
    ApiException refused = await().atMost(Duration.ofSeconds(30)).until(() -> tryCreateService(replica, "someone-elses"),
        e -> e != null && e.getResponseBody().contains("ValidatingAdmissionPolicy"));
    assertThat(refused.getCode()).isEqualTo(403);
    assertThat(refused.getResponseBody()).contains("(holder: someone-else)");

    // Without a Lease, the API server cannot judge the binding at all, and would refuse these writes by
    // everyone with parameterNotFoundAction Deny (it looks for the parameter before the matchConditions).
    leases.deleteNamespacedLease(chart.leaseName(), ns).execute();
    await().atMost(Duration.ofSeconds(30)).until(() -> tryCreateService(replica, "no-lease") == null);
    assertThat(tryCreateService(cluster.adminClient(), "admin-no-lease")).as("the admin's write without a Lease").isNull();
    String elsewhere = ns + "-elsewhere";
    ChartEndToEnd.createNamespace(cluster, elsewhere, Map.of());
    try {
      assertThat(tryCreateService(cluster.adminClient(), elsewhere, "elsewhere")).as("a write in another namespace").isNull();
    } finally {
      ChartEndToEnd.deleteNamespace(cluster, elsewhere);
    }
  }

  @Test
  @Order(3)
  void aPausedLeadersLateWritesAreAllRefusedByTheApiServer() throws Exception {
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    startReplica();
    startReplica();
    await().atMost(ChartEndToEnd.START).until(() -> replicas.stream().allMatch(OperatorProcess::isReady));
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      names.add("fenced-" + i);
      webApps.create("fenced-" + i, WebApps.spec("nginx:1.27", 1, 80));
    }
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    Convergence.await(webApps, apps, ns, Set.of(), ChartEndToEnd.CONVERGE);

    int trials = FULL ? 10 : 1;
    List<Trial> results = new ArrayList<>();
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(50), 1_000_000, 13)) {
      // An inconclusive trial (nothing the old leader sent late reached admission) is repeated, a bounded number of times.
      for (int t = 0; results.size() < trials || results.stream().noneMatch(Trial::conclusive); t++) {
        assertThat(t).as("trials in which no late write of the paused leader reached admission").isLessThan(trials + 3);
        results.add(pauseTheLeader());
        startReplica();
        await().atMost(ChartEndToEnd.START).until(() -> replicas.stream().filter(OperatorProcess::isRunning)
            .allMatch(OperatorProcess::isReady));
      }
    }
    Duration converged = Convergence.await(webApps, apps, ns, Set.of(), ChartEndToEnd.CONVERGE);

    for (Trial trial : results) {
      System.out.printf("fence trial: paused %s for %d ms; %s took over after %d ms; SIGCONT to exit %s ms; "
              + "late writes by the old leader: %d sent, %d stored, %d refused by the fence, %d refused otherwise (%s)%n",
          trial.paused, trial.pauseMillis, trial.successor, trial.takeoverMillis,
          trial.exitMillis < 0 ? "(still running)" : Long.toString(trial.exitMillis), trial.late.size(),
          trial.stored().size(), trial.fenced().size(), trial.late.size() - trial.stored().size() - trial.fenced().size(),
          trial.late.stream().filter(e -> e.code() != 403).map(e -> Integer.toString(e.code()))
              .collect(Collectors.groupingBy(c -> c, Collectors.counting())));
    }
    System.out.printf("fence: all WebApps converged %d ms after the last trial%n", converged.toMillis());
    for (Trial trial : results) {
      assertThat(trial.stored()).as("writes by %s that the API server stored after %s's first Lease write",
          trial.paused, trial.successor).isEmpty();
      assertThat(trial.fenced()).as("the fence's refusals name the holder").allSatisfy(e ->
          assertThat(e.message()).contains("Steward pod " + trial.paused.substring("steward/".length()))
              .contains("holder: " + trial.successor.substring("steward/".length())));
    }
    assertThat(results).as("trials in which a write the paused leader sent after losing the Lease reached admission")
        .anyMatch(Trial::conclusive);
    // The legitimate leaders were never refused by the fence, beyond the moment the API server needs to see them lead.
    System.out.printf("fence: refusals of a replica in its own term: %d in all, %d later than %d ms into the term%n",
        refusalsOfLeaders(Duration.ZERO).size(), refusalsOfLeaders(PROPAGATION).size(), PROPAGATION.toMillis());
    assertThat(refusalsOfLeaders(PROPAGATION)).as("the fence's refusals of a replica that held the Lease").isEmpty();
  }

  @Test
  @Order(4)
  void aTokenBoundToNoPodOrToAnotherPodMayNotWriteButEventsAreNotFenced() throws Exception {
    if (WITHOUT_POLICY) {
      return;
    }
    String holder = holder();
    assertThat(holder).as("a replica leads after the pause test").isNotEmpty();
    V1Pod other = pods.values().stream().filter(p -> !p.getMetadata().getName().equals(holder)).findFirst().orElseThrow();

    ApiClient unbound = client(null);
    ApiException noPod = tryCreateService(unbound, "unbound");
    assertThat(noPod).as("a write with a token bound to no pod").isNotNull();
    assertThat(noPod.getCode()).isEqualTo(403);
    assertThat(noPod.getResponseBody()).contains("only with a service-account token bound to its pod")
        .contains("authentication.kubernetes.io/pod-name");

    ApiException notHolder = tryCreateService(client(other), "not-holder");
    assertThat(notHolder).as("a write by a pod that does not hold the Lease").isNotNull();
    assertThat(notHolder.getCode()).isEqualTo(403);
    assertThat(notHolder.getResponseBody()).contains("Steward pod " + other.getMetadata().getName() + " may not write services "
        + ns + "/not-holder: it does not hold the leader Lease " + ns + "/" + chart.leaseName() + " (holder: " + holder + ")");

    // The holder's own token may; Events are a record, not state, and anyone with the RBAC may send them.
    assertThat(tryCreateService(client(pods.get(holder)), "holder")).as("a write by the holder's pod").isNull();
    CoreV1Event event = new CoreV1Event().metadata(new V1ObjectMeta().generateName("fence-").namespace(ns))
        .involvedObject(new V1ObjectReference().kind("Service").name("holder").namespace(ns))
        .reason("Probe").message("an Event from a replica that does not lead").type("Normal")
        .firstTimestamp(OffsetDateTime.now()).lastTimestamp(OffsetDateTime.now()).count(1);
    assertThat(new CoreV1Api(client(other)).createNamespacedEvent(ns, event).execute().getMetadata().getName()).isNotNull();
  }

  /** How the network keeps the leader's writes from the API server until after another replica took over. */
  enum NetworkFault {
    /** What the leader sends is kept, in order, until the standby has led for a second; what it hears still flows. */
    HOLD,
    /** Everything the leader sends arrives one and a half lease durations late. */
    DELAY
  }

  /**
   * What the local guard cannot stop: writes the leader sent inside its term that the network holds
   * or delays (a stalled link, a congested middlebox) and delivers only after another replica took
   * over. The local guard stays on, as in production: the leader stops writing when it can no longer
   * renew, and exits, but what it sent before is already on its way; the connection's close is
   * delayed with the data, so the API server serves what arrives instead of cancelling it.
   *
   * <p>Late updates are mostly refused by optimistic locking (the object changed since the old
   * leader read it). What optimistic locking cannot refuse is a create: as the fault begins, WebApps
   * are created and, a moment later, deleted again. The old leader, still in its term, sends creates
   * of their Deployments; the new leader never sees those WebApps. Without the policy
   * ({@code -Dsteward.fence.withoutPolicy=true}) the late creates are stored, owned by WebApps that
   * no longer exist, and this test fails; with it, the API server refuses them.
   */
  @ParameterizedTest
  @EnumSource(NetworkFault.class)
  @Order(5)
  void writesHeldInTheNetworkUntilAfterATakeoverAreRefusedByTheApiServer(NetworkFault fault) throws Exception {
    replicas.forEach(OperatorProcess::close);
    replicas.clear();
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    Map<String, FaultProxy> proxyOf = new LinkedHashMap<>();
    int trials = FULL ? 20 : 1;
    List<Trial> results = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        startReplicaBehindProxy(proxyOf);
      }
      await().atMost(ChartEndToEnd.START).until(() -> replicas.stream().allMatch(OperatorProcess::isReady));
      Convergence.await(webApps, new AppsV1Api(cluster.adminClient()), ns, Set.of(), ChartEndToEnd.CONVERGE);
      for (int t = 0; results.size() < trials || results.stream().noneMatch(Trial::conclusive); t++) {
        assertThat(t).as("trials in which no held write of the old leader reached admission").isLessThan(trials + 3);
        results.add(holdTheLeader(proxyOf, fault, webApps, fault.name().toLowerCase() + t));
        startReplicaBehindProxy(proxyOf);
        await().atMost(ChartEndToEnd.START).until(() -> replicas.stream().filter(OperatorProcess::isRunning)
            .allMatch(OperatorProcess::isReady));
      }
    } finally {
      proxyOf.values().forEach(FaultProxy::close);
    }
    for (Trial trial : results) {
      System.out.printf("%s trial: %s faulted for %d ms, exited %d ms after the fault began; %s took over after %d ms; "
              + "late writes by the old leader: %d arrived, %d stored, %d refused by the fence, %d refused otherwise %s%n",
          fault, trial.paused, trial.pauseMillis, trial.exitMillis, trial.successor, trial.takeoverMillis,
          trial.late.size(), trial.stored().size(), trial.fenced().size(),
          trial.late.size() - trial.stored().size() - trial.fenced().size(),
          trial.late.stream().filter(e -> e.code() != 403).map(e -> Integer.toString(e.code()))
              .collect(Collectors.groupingBy(c -> c, Collectors.counting())));
    }
    String scenario = (fault == NetworkFault.HOLD
        ? "server-side fence: what the leader sends held until after a takeover, then released"
        : "server-side fence: what the leader sends delayed 1.5 lease durations")
        + (WITHOUT_POLICY ? " (without the policy)" : "");
    ReliabilityReport report = ReliabilityReport.shared();
    report.record(scenario, "trials", results.size());
    report.record(scenario, "fault began → old leader exited, ms (max)",
        results.stream().mapToLong(Trial::exitMillis).max().orElse(-1));
    report.record(scenario, "fault began → new leader's first Lease write, ms (each)",
        results.stream().map(r -> r.takeoverMillis()).toList());
    report.record(scenario, "writes by the old leader that arrived after the takeover (all trials)",
        results.stream().mapToInt(r -> r.late().size()).sum());
    report.record(scenario, "of those stored", results.stream().mapToInt(r -> r.stored().size()).sum());
    report.record(scenario, "of those refused by the fence", results.stream().mapToInt(r -> r.fenced().size()).sum());
    report.record(scenario, "of those refused by optimistic locking (409)",
        results.stream().mapToLong(r -> r.late().stream().filter(e -> e.code() == 409).count()).sum());
    report.record(scenario, "trials in which a late write reached admission",
        results.stream().filter(r -> r.conclusive()).count());
    report.write(Path.of("target", "reliability"));
    for (Trial trial : results) {
      assertThat(trial.stored()).as("writes %s sent in its term that the API server stored after %s's first Lease write",
          trial.paused, trial.successor).isEmpty();
      assertThat(trial.exitMillis()).as("%s exits once it cannot renew: fault → exit, ms", trial.paused)
          .isLessThan(LEASE.toMillis());
      assertThat(trial.takeoverMillis()).as("fault → takeover, ms (bound: lease + retry + 2 s)")
          .isLessThanOrEqualTo(LEASE.plusSeconds(3).toMillis());
    }
    assertThat(results).as("trials in which a held write reached admission after the takeover")
        .anyMatch(Trial::conclusive);
  }

  private static void startReplicaBehindProxy(Map<String, FaultProxy> proxyOf) {
    FaultProxy proxy = new FaultProxy(cluster.apiServerPort());
    proxy.lingerAfterClientClose(LINGER);
    String name = replicaName(nextReplica++);
    proxyOf.put(name, proxy);
    replicas.add(chart.startReplica(cluster, name, List.of(), List.of(), proxy.url()));
  }

  /**
   * Holds what the leader sends until the standby has led for a second, then releases it; or delays
   * it by one and a half lease durations, so what it sent in its term lands after the takeover. Then
   * waits until everything it sent has arrived and been served.
   */
  private Trial holdTheLeader(Map<String, FaultProxy> proxyOf, NetworkFault fault, WebApps webApps, String trialName)
      throws Exception {
    // The holder must know it leads: one whose take-over is still being confirmed (its second read of
    // the bucket Leases, say) when the fault begins learns of it only once the fault lets that through.
    // A replica that lost its term on a loaded machine exits, as designed; its pod would restart.
    // Two must run when the fault begins, or no standby is there to take over.
    String holder;
    try {
      holder = await().atMost(LEASE.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
          .until(() -> {
            replaceExitedReplicas(proxyOf);
            return holder();
          }, h -> replicas.stream().anyMatch(p -> p.identity().equals(h) && p.isRunning() && leads(p)));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("no running replica led and held the Lease (holder: " + holder() + ") within "
          + LEASE.multipliedBy(3) + "; the replicas:\n" + describeReplicas(), e);
    }
    assertThat(unexplainedExits).as("replicas that exited before their fault, other than after losing their term")
        .isEmpty();
    OperatorProcess leader = replicas.stream().filter(p -> p.identity().equals(holder)).findFirst().orElseThrow();
    exitAccountedFor.add(holder);
    FaultProxy proxy = proxyOf.get(holder);
    Duration delay = LEASE.multipliedBy(3).dividedBy(2);
    Instant faulted = Instant.now();
    if (fault == NetworkFault.HOLD) {
      proxy.mode(FaultProxy.Mode.HOLD);
    } else {
      proxy.delayToServer(delay);
    }
    String successor;
    try {
      // The old leader still leads: it sends creates of their Deployments, then learns they are gone.
      List<String> vanishing = List.of(trialName + "-a", trialName + "-b", trialName + "-c");
      for (String name : vanishing) {
        webApps.create(name, WebApps.spec("nginx:1.27", 1, 80));
      }
      Thread.sleep(VANISHING_FOR.toMillis());
      for (String name : vanishing) {
        webApps.delete(name);
      }
      successor = await().atMost(LEASE.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
          .until(ServerSideFenceIT::holder, h -> h != null && !h.isEmpty() && !h.equals(holder));
      if (fault == NetworkFault.HOLD) {
        Thread.sleep(PROPAGATION.toMillis());
      }
    } finally {
      proxy.mode(FaultProxy.Mode.PASS);
      proxy.delayToServer(Duration.ZERO); // what is already under way keeps its delay
    }
    Instant released = Instant.now();
    leader.waitForExit(Duration.ofSeconds(45));
    Instant exited = Instant.now();
    long exitMillis = leader.exitedAt().map(at -> Duration.between(faulted, at).toMillis()).orElseThrow();
    // Everything it sent is on the API server's side by then; LINGER later the connection closes.
    Instant allArrived = fault == NetworkFault.HOLD ? later(released, exited) : exited.plus(delay);
    Thread.sleep(Math.max(0, Duration.between(Instant.now(), allArrived.plus(LINGER)).toMillis()));

    return judge(leader, successor, faulted, released, exitMillis);
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  // ---- a trial ---------------------------------------------------------------------------------

  /**
   * What one fault did, from the audit log: the old leader's writes to fenced resources after the
   * takeover. {@code pauseMillis} is how long the fault lasted; {@code exitMillis} how long the old
   * leader took to exit, from SIGCONT after a pause, from the fault's start after a network fault
   * (-1: it did not exit by itself).
   */
  private record Trial(String paused, String successor, long pauseMillis, long takeoverMillis, long exitMillis,
      List<AuditLog.Entry> late) {
    List<AuditLog.Entry> stored() {
      return late.stream().filter(e -> e.code() >= 200 && e.code() < 300).toList();
    }

    List<AuditLog.Entry> fenced() {
      return late.stream().filter(e -> e.code() == 403 && e.message().contains(POLICY_MESSAGE)).toList();
    }

    /** A late write reached admission (stored or fenced): one refused earlier as a conflict tests nothing. */
    boolean conclusive() {
      return late.stream().anyMatch(e -> e.code() != 409);
    }
  }

  private Trial pauseTheLeader() throws Exception {
    Thread.sleep(2000);
    String holder = holder();
    OperatorProcess leader = replicas.stream().filter(p -> p.identity().equals(holder) && p.isRunning()).findFirst()
        .orElseThrow(() -> new AssertionError("no running replica holds the Lease; holder: " + holder));
    Instant paused = Instant.now();
    signal("STOP", leader.pid());
    String successor;
    try {
      successor = await().atMost(LEASE.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
          .until(ServerSideFenceIT::holder, h -> h != null && !h.isEmpty() && !h.equals(holder));
      // Paused for at least one and a half lease durations, as a long GC pause or a frozen VM would.
      long remaining = LEASE.multipliedBy(3).dividedBy(2).toMillis() - Duration.between(paused, Instant.now()).toMillis();
      Thread.sleep(Math.max(0, remaining));
    } finally {
      signal("CONT", leader.pid());
    }
    Instant resumed = Instant.now();
    long exitMillis = -1;
    try {
      leader.waitForExit(Duration.ofSeconds(45));
      exitMillis = Duration.between(resumed, Instant.now()).toMillis();
    } catch (IllegalStateException stillRunning) {
      leader.close();
    }
    Thread.sleep(2000);

    return judge(leader, successor, paused, resumed, exitMillis);
  }

  /**
   * A trial as the audit log shows it: the successor's first Lease write after the fault began, and
   * every write of {@code leader} to a fenced resource the API server received after that.
   */
  private Trial judge(OperatorProcess leader, String successor, Instant faulted, Instant faultEnded, long exitMillis) {
    String old = leader.userAgent();
    String next = "steward/" + successor;
    List<AuditLog.Entry> steward = cluster.auditLog().entries(e -> e.fromUserAgentStartingWith("steward/")
        && !e.received().isBefore(faulted)).stream().sorted(Comparator.comparing(AuditLog.Entry::received)).toList();
    Instant takeover = steward.stream().filter(e -> e.userAgent().equals(next) && isLeaseWrite(e) && ok(e))
        .map(AuditLog.Entry::received).findFirst()
        .orElseThrow(() -> new AssertionError(next + " holds the Lease but the audit log has no Lease write by it"));
    List<AuditLog.Entry> late = steward.stream().filter(e -> e.userAgent().equals(old) && e.mutating()
        && FENCED.contains(e.resource()) && ns.equals(e.namespace()) && e.received().isAfter(takeover)).toList();
    return new Trial(old, next, Duration.between(faulted, faultEnded).toMillis(),
        Duration.between(faulted, takeover).toMillis(), exitMillis, late);
  }

  /** The fence's refusals of each replica during its own terms, later than {@code grace} into the term. */
  private List<AuditLog.Entry> refusalsOfLeaders(Duration grace) {
    List<AuditLog.Entry> steward = cluster.auditLog().entries(e -> e.fromUserAgentStartingWith("steward/")).stream()
        .sorted(Comparator.comparing(AuditLog.Entry::received)).toList();
    List<AuditLog.Entry> refused = new ArrayList<>();
    String holder = null;
    Instant since = null;
    for (AuditLog.Entry e : steward) {
      if (isLeaseWrite(e) && ok(e) && !e.userAgent().equals(holder)) {
        holder = e.userAgent();
        since = e.received();
      } else if (e.userAgent().equals(holder) && e.code() == 403 && e.message().contains(POLICY_MESSAGE)
          && e.received().isAfter(since.plus(grace))) {
        refused.add(e);
      }
    }
    return refused;
  }

  private static boolean isLeaseWrite(AuditLog.Entry e) {
    return e.mutating() && "leases".equals(e.resource()) && chart.leaseName().equals(e.name()) && ns.equals(e.namespace());
  }

  private static boolean ok(AuditLog.Entry e) {
    return e.code() >= 200 && e.code() < 300;
  }

  // ---- replicas and tokens ---------------------------------------------------------------------

  private static String replicaName(int index) {
    return "steward-5d8c6f7b9-fence" + index;
  }

  /** A Pod object of that name, for tokens bound to it (the replica's own creates it for the first test). */
  private static V1Pod pod(String name) {
    return pods.computeIfAbsent(name, n -> chart.createPod(cluster, n));
  }

  /** A replica as the chart's pod runs it, with the operator's own guard off: only the fence stands in the way. */
  private static void startReplica() {
    String name = replicaName(nextReplica++);
    replicas.add(chart.startReplica(cluster, name, List.of("--steward.fencing.local-guard=false")));
    pod(name);
  }

  /** A client authenticated as the chart's ServiceAccount with a token bound to {@code pod} (null: to none). */
  private static ApiClient client(V1Pod pod) {
    String file = pod == null ? "unbound" : pod.getMetadata().getName();
    Path kubeconfig = chart.serviceAccount(cluster).writeKubeconfig(cluster,
        Path.of("target", "deploy-it", ns, "clients", file + ".kubeconfig"), pod);
    return LocalCluster.clientFor(kubeconfig, "fence-test/" + file);
  }

  /** Creates (and removes again) a Service as {@code client}; the refusal, or null when it was allowed. */
  private static ApiException tryCreateService(ApiClient client, String name) {
    return tryCreateService(client, ns, name);
  }

  private static ApiException tryCreateService(ApiClient client, String ns, String name) {
    V1Service service = new V1Service().metadata(new V1ObjectMeta().name(name)).spec(new V1ServiceSpec()
        .selector(Map.of("app", name)).ports(List.of(new V1ServicePort().port(80))));
    try {
      new CoreV1Api(client).createNamespacedService(ns, service).execute();
    } catch (ApiException e) {
      return e;
    }
    try {
      new CoreV1Api(cluster.adminClient()).deleteNamespacedService(name, ns).execute();
    } catch (ApiException e) {
      throw new IllegalStateException("deleting the probe Service " + name + ": HTTP " + e.getCode(), e);
    }
    return null;
  }

  private static boolean leads(OperatorProcess replica) {
    var response = replica.actuator("leader");
    return response != null && response.body().contains("\"leading\":true");
  }

  /**
   * Starts a replica for each one that exited before its fault after losing its term, saying which;
   * any other exit is a failure, recorded in {@link #unexplainedExits}.
   */
  private static void replaceExitedReplicas(Map<String, FaultProxy> proxyOf) {
    for (OperatorProcess replica : replicas) {
      if (!replica.isRunning() && exitAccountedFor.add(replica.identity())) {
        String loss = leadershipLines(replica).filter(l -> l.contains("lost its leadership term")).findFirst()
            .orElse(null);
        if (loss == null) {
          unexplainedExits.add(replica.identity() + " exited with " + replica.exitCode() + "; its log ends:\n"
              + replica.logTail(20));
        }
        System.out.printf("replacing %s, which exited with %d before any fault of its own: %s%n", replica.identity(),
            replica.exitCode(), loss == null ? "not after losing its term" : loss);
      }
    }
    for (long i = replicas.stream().filter(OperatorProcess::isRunning).count(); i < 2; i++) {
      startReplicaBehindProxy(proxyOf);
    }
  }

  /** Each replica: running or its exit code, what it says of leading, and its log's leadership lines. */
  private static String describeReplicas() {
    StringBuilder out = new StringBuilder();
    for (OperatorProcess replica : replicas) {
      out.append("  ").append(replica.identity()).append(": ");
      if (replica.isRunning()) {
        var leader = replica.actuator("leader");
        out.append("running, /actuator/leader ").append(leader == null ? "unanswered" : leader.body());
      } else {
        out.append("exited with ").append(replica.exitCode());
      }
      out.append('\n');
      leadershipLines(replica).forEach(l -> out.append("    ").append(l).append('\n'));
    }
    return out.toString();
  }

  private static Stream<String> leadershipLines(OperatorProcess replica) {
    try {
      return Files.readAllLines(replica.log()).stream().filter(l -> l.contains("took the Lease")
          || l.contains(" leads (") || l.contains("lost its leadership") || l.contains("Not leading")
          || l.contains("not released") || l.contains(" stopped"));
    } catch (IOException e) {
      return Stream.of("(log unreadable: " + e + ")");
    }
  }

  private static String holder() {
    try {
      var spec = new CoordinationV1Api(cluster.adminClient()).readNamespacedLease(chart.leaseName(), ns).execute().getSpec();
      return spec.getHolderIdentity() == null ? "" : spec.getHolderIdentity();
    } catch (ApiException e) {
      return e.getCode() == 404 ? "" : null;
    }
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
    }
  }
}
