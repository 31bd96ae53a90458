package io.steward.operator.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.PausedWriter;
import io.steward.operator.support.TermAudit;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.FaultProxy;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fenced leadership under the faults that make a leader outlive its term: a frozen process, a
 * partitioned network, a graceful hand-over. The operators are the built jar in their own JVMs;
 * every verdict comes from the API server's audit log (which replica's requests landed, and when)
 * and never from the operators. WebApps change all along, so a leader always has something to
 * write. A short version runs in {@code mvn verify}, the full one with {@code -Preliability}.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class FencingIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Duration RETRY = Duration.ofSeconds(1);
  private static final Map<String, String> SHORT_LEASE = Map.of("steward.leader-election.lease-duration", "6s",
      "steward.leader-election.renew-deadline", "4s", "steward.leader-election.retry-period", "1s");
  /** Long enough a term that a four-second freeze leaves the leader's intact; retries as short as usual. */
  private static final Duration CLOCK_LEASE_DURATION = Duration.ofSeconds(10);
  private static final Map<String, String> CLOCK_LEASE = Map.of("steward.leader-election.lease-duration", "10s",
      "steward.leader-election.renew-deadline", "8s", "steward.leader-election.retry-period", "1s");
  private static final int WEBAPPS = 30;
  /**
   * {@code -Dsteward.fencing-it.local-guard=false} runs the scenarios with the operators' local guard
   * off: the way to see these tests fail on the bug they claim absent.
   */
  private static final String LOCAL_GUARD = System.getProperty("steward.fencing-it.local-guard", "true");
  private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

  private static LocalCluster cluster;
  private static CoordinationV1Api leases;
  private final List<OperatorProcess> processes = new ArrayList<>();
  private final List<FaultProxy> proxies = new ArrayList<>();
  private final Random random = new Random(12);

  @BeforeAll
  static void setUp(LocalCluster localCluster) {
    cluster = localCluster;
    Crds.installWebAppCrd(cluster.adminClient());
    leases = new CoordinationV1Api(cluster.adminClient());
  }

  @AfterEach
  void stopAll() {
    closeAll(processes);
    proxies.forEach(FaultProxy::close);
    proxies.clear();
  }

  @AfterAll
  static void writeReport() {
    REPORT.write(Path.of("target", "reliability"));
  }

  /**
   * SIGSTOP the leader for 1.2 to 3 lease durations at a random moment, then SIGCONT. The standby
   * takes over meanwhile; the old leader must write nothing once resumed (its term ran out while it
   * was frozen) and must be gone within a second. The one exception is a request a thread had passed
   * the guard with and not yet sent when the process froze ({@link PausedWriter}): it leaves on
   * SIGCONT, and only the server-side fence, which these replicas run without, could refuse it (and
   * not if it is an Event).
   */
  @Test
  void pausedLeaderWritesNothingAfterItsTerm() throws Exception {
    int trials = FULL ? 50 : 1;
    String ns = namespace("pause");
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    Instant start = Instant.now();
    List<String> names = createWebApps(webApps);
    for (int i = 0; i < 2; i++) {
      replica(ns, "p" + i, SHORT_LEASE, null);
    }
    awaitReady();
    List<Long> exitMillis = new ArrayList<>();
    List<Long> takeoverMillis = new ArrayList<>();
    int lateWrites = 0;
    int heldAtFreeze = 0;
    int refusedBeforeTakeover = 0;
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(50), 1_000_000, 21)) {
      for (int trial = 0; trial < trials; trial++) {
        Thread.sleep(1500 + random.nextInt(2500));
        OperatorProcess leader = leader(ns);
        Duration pause = Duration.ofMillis((long) (LEASE.toMillis() * (1.2 + 1.8 * random.nextDouble())));
        Instant stopped = Instant.now();
        signal(leader, "STOP");
        Thread.sleep(pause.toMillis());
        Instant resumed = Instant.now();
        long resumedNanos = System.nanoTime();
        signal(leader, "CONT");
        int exit = leader.waitForExit(Duration.ofSeconds(30));
        exitMillis.add((System.nanoTime() - resumedNanos) / 1_000_000);
        assertThat(exit).as("exit code of the resumed ex-leader").isNotZero();
        // A replacement joins for the next trial; on the last one only if the standby itself lost a
        // term meanwhile (a loaded machine, a slow API server) and nobody is left to take over.
        int replacement = 2 + trial;
        boolean more = trial + 1 < trials;
        if (more) {
          replica(ns, "p" + replacement, SHORT_LEASE, null);
        }
        OperatorProcess next = awaitNewLeader(ns, leader, () -> replica(ns, "p" + replacement, SHORT_LEASE, null));
        if (more) {
          awaitReady();
        }

        TermAudit audit = new TermAudit(cluster.auditLog(), ns, "steward-leader", stopped);
        Instant newTerm = audit.termStart(next.userAgent(), stopped).orElseThrow();
        takeoverMillis.add(Duration.between(stopped, newTerm).toMillis());
        // Its term ended during the pause, so whatever it wrote after the takeover or after SIGCONT
        // is late, except the one write a thread may have held between the guard and the socket.
        PausedWriter.LateWrites late = PausedWriter.split(
            audit.successfulWrites(leader.userAgent(), earlier(newTerm, resumed)), resumed);
        heldAtFreeze += late.heldAtFreeze().isPresent() ? 1 : 0;
        lateWrites += late.passedTheGuard().size();
        assertThat(late.passedTheGuard()).as("trial %d: writes by the old leader after %s took over or after SIGCONT",
            trial, next.identity()).isEmpty();
        refusedBeforeTakeover += audit.refusedWrites(leader.userAgent(), resumed, 409).size();
      }
    }
    awaitConverged(ns, webApps);
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "trials", trials);
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "lease / renew deadline / retry", "6s / 4s / 1s");
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "successful writes by the old leader after the new leader's first Lease write or SIGCONT", lateWrites);
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "writes held between the guard and the socket at the freeze, sent on SIGCONT", heldAtFreeze);
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "409s met by the old leader after SIGCONT", refusedBeforeTakeover);
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "SIGCONT to exit, ms (each)", exitMillis);
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "SIGCONT to exit, max ms", max(exitMillis));
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "SIGSTOP to new leader's first Lease write, median ms", median(takeoverMillis));
    REPORT.record("pause (SIGSTOP 1.2-3 lease durations)", "since", start.toString());
    assertThat(max(exitMillis)).as("SIGCONT to exit, ms (goal 1000; sanity bound)").isLessThan(5_000);
  }

  /**
   * Cut the leader off from the API server (a proxy that drops everything, connections kept open)
   * for longer than a lease duration, then heal. The standby takes over within lease duration plus
   * retry period plus a little; the cut-off leader's term runs out, it exits, and none of its writes
   * lands after the new leader's term began.
   */
  @Test
  void partitionedLeaderIsReplacedAndWritesNothingLate() throws Exception {
    int trials = FULL ? 20 : 1;
    String ns = namespace("partition");
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    List<String> names = createWebApps(webApps);
    Map<OperatorProcess, FaultProxy> proxyOf = new LinkedHashMap<>();
    for (int i = 0; i < 2; i++) {
      FaultProxy proxy = proxy();
      proxyOf.put(replica(ns, "n" + i, SHORT_LEASE, proxy), proxy);
    }
    awaitReady();
    List<Long> takeoverMillis = new ArrayList<>();
    List<Long> exitMillis = new ArrayList<>();
    int lateWrites = 0;
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(50), 1_000_000, 22)) {
      for (int trial = 0; trial < trials; trial++) {
        Thread.sleep(1500 + random.nextInt(2500));
        OperatorProcess leader = leader(ns);
        FaultProxy cut = proxyOf.get(leader);
        Instant partitioned = Instant.now();
        long partitionedNanos = System.nanoTime();
        cut.mode(FaultProxy.Mode.BLACKHOLE);
        int replacement = 2 + trial;
        Runnable replace = () -> {
          FaultProxy proxy = proxy();
          proxyOf.put(replica(ns, "n" + replacement, SHORT_LEASE, proxy), proxy);
        };
        OperatorProcess next = awaitNewLeader(ns, leader, replace);
        leader.waitForExit(Duration.ofSeconds(30));
        exitMillis.add((System.nanoTime() - partitionedNanos) / 1_000_000);
        cut.mode(FaultProxy.Mode.PASS);
        Thread.sleep(2000); // anything the cut-off replica had queued would land now
        if (trial + 1 < trials && proxyOf.keySet().stream().filter(OperatorProcess::isRunning).count() < 2) {
          replace.run();
          awaitReady();
        }

        TermAudit audit = new TermAudit(cluster.auditLog(), ns, "steward-leader", partitioned);
        Instant newTerm = audit.termStart(next.userAgent(), partitioned).orElseThrow();
        takeoverMillis.add(Duration.between(partitioned, newTerm).toMillis());
        List<AuditLog.Entry> late = audit.successfulWrites(leader.userAgent(), newTerm);
        lateWrites += late.size();
        assertThat(late).as("trial %d: writes by the partitioned leader after %s took over", trial, next.identity())
            .isEmpty();
      }
    }
    awaitConverged(ns, webApps);
    String scenario = "partition (blackhole the leader's connection)";
    REPORT.record(scenario, "trials", trials);
    REPORT.record(scenario, "successful writes by the old leader after the new term began", lateWrites);
    REPORT.record(scenario, "partition to new leader's first Lease write, ms (each)", takeoverMillis);
    REPORT.record(scenario, "partition to new leader's first Lease write, max ms (goal <= 6000 + 1000 + 2000)", max(takeoverMillis));
    REPORT.record(scenario, "partition to the old leader's exit, max ms", max(exitMillis));
    assertThat(max(takeoverMillis)).isLessThan(LEASE.plus(RETRY).plusSeconds(2).toMillis() + 3_000);
  }

  /**
   * SIGTERM the leader: it finishes what runs, releases the Lease, and the standby, which watches
   * the Lease, takes over at once. Figure: SIGTERM to the new leader's first write; and the old
   * leader writes nothing after its release.
   */
  @Test
  void gracefulHandoverIsQuick() throws Exception {
    int trials = FULL ? 10 : 1;
    String ns = namespace("graceful");
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    List<String> names = createWebApps(webApps);
    for (int i = 0; i < 2; i++) {
      replica(ns, "g" + i, Map.of(), null);
    }
    awaitReady();
    List<Long> handoverMillis = new ArrayList<>();
    int lateWrites = 0;
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(50), 1_000_000, 23)) {
      for (int trial = 0; trial < trials; trial++) {
        Thread.sleep(2000 + random.nextInt(2000));
        OperatorProcess leader = leader(ns);
        OperatorProcess standby = processes.stream().filter(p -> p.isRunning() && p != leader).findFirst().orElseThrow();
        Instant term = Instant.now();
        assertThat(leader.terminate()).as("exit code after SIGTERM").isZero();
        Thread.sleep(1500);
        if (trial + 1 < trials) {
          replica(ns, "g" + (2 + trial), Map.of(), null);
          awaitReady();
        }

        TermAudit audit = new TermAudit(cluster.auditLog(), ns, "steward-leader", term);
        Duration firstWrite = audit.firstWrite(standby.userAgent(), term).orElseThrow();
        handoverMillis.add(firstWrite.toMillis());
        Instant released = audit.lastLeaseWrite(leader.userAgent()).orElseThrow();
        List<AuditLog.Entry> late = audit.successfulWrites(leader.userAgent(), released);
        lateWrites += late.size();
        assertThat(late).as("trial %d: writes by the old leader after it released the Lease", trial).isEmpty();
      }
    }
    String scenario = "graceful hand-over (SIGTERM)";
    REPORT.record(scenario, "trials", trials);
    REPORT.record(scenario, "SIGTERM to new leader's first write, ms (each)", handoverMillis);
    REPORT.record(scenario, "SIGTERM to new leader's first write, median ms (goal <= 1000)", median(handoverMillis));
    REPORT.record(scenario, "SIGTERM to new leader's first write, max ms", max(handoverMillis));
    REPORT.record(scenario, "writes by the old leader after its release", lateWrites);
    assertThat(median(handoverMillis)).as("median hand-over, ms (sanity bound)").isLessThan(5_000);
  }

  /**
   * A slow API server: every byte between the leader and the server takes the given time each way.
   * Swept over latencies (one in the short version), each for a while under load: whether leadership
   * changes hands (the latency at which it starts to flap), and that no write of a replica ever lands
   * after another's term began, at any latency. Default lease timings (15 s / 10 s / 2 s).
   */
  @Test
  void slowApiServerNeverLetsALateWriteLand() throws Exception {
    List<Duration> latencies = FULL
        ? List.of(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(5))
        : List.of(Duration.ofMillis(300));
    Duration each = FULL ? Duration.ofSeconds(60) : Duration.ofSeconds(15);
    String ns = namespace("slow");
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    List<String> names = createWebApps(webApps);
    Map<OperatorProcess, FaultProxy> proxyOf = new LinkedHashMap<>();
    for (int i = 0; i < 2; i++) {
      FaultProxy proxy = proxy();
      proxyOf.put(replica(ns, "s" + i, Map.of(), proxy), proxy);
    }
    awaitReady();
    String scenario = "slow API server (latency each way, lease 15s / 10s / 2s)";
    String flapsAt = "none up to " + latencies.get(latencies.size() - 1).toMillis() + " ms";
    Instant start = Instant.now();
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(100), 1_000_000, 25)) {
      int replacement = 2;
      for (Duration latency : latencies) {
        OperatorProcess leader = leader(ns);
        proxyOf.values().forEach(proxy -> proxy.latency(latency));
        Thread.sleep(each.toMillis());
        proxyOf.values().forEach(proxy -> proxy.latency(Duration.ZERO));
        boolean changed = !leader.isRunning() || !leader.identity().equals(holder(ns));
        REPORT.record(scenario, "leadership changed at " + latency.toMillis() + " ms", changed);
        if (changed && flapsAt.startsWith("none")) {
          flapsAt = latency.toMillis() + " ms";
        }
        for (OperatorProcess gone : processes.stream().filter(p -> !p.isRunning() && proxyOf.containsKey(p)).toList()) {
          proxyOf.remove(gone);
          FaultProxy proxy = proxy();
          proxyOf.put(replica(ns, "s" + replacement++, Map.of(), proxy), proxy);
        }
        awaitReady();
      }
    }
    int late = lateWrites(ns, start);
    REPORT.record(scenario, "latency at which leadership starts to change hands", flapsAt);
    REPORT.record(scenario, "writes that landed after another replica's term began", late);
    assertThat(late).isZero();
    awaitConverged(ns, webApps);
  }

  /** Writes by any replica that landed while another held the Lease, judged by Lease writes in the audit log. */
  private int lateWrites(String ns, Instant since) {
    List<AuditLog.Entry> entries = cluster.auditLog().entries(e -> e.fromUserAgentStartingWith("steward/")
            && e.mutating() && ns.equals(e.namespace()) && !e.received().isBefore(since) && e.code() >= 200 && e.code() < 300)
        .stream().sorted(java.util.Comparator.comparing(AuditLog.Entry::received)).toList();
    String holder = null;
    int late = 0;
    for (AuditLog.Entry e : entries) {
      if ("leases".equals(e.resource())) {
        holder = e.userAgent();
      } else if (holder != null && !holder.equals(e.userAgent())) {
        late++;
      }
    }
    return late;
  }

  /**
   * Step the wall clocks while both replicas run: the standby's ten minutes forward, the leader's ten
   * minutes back, with the leader frozen for four seconds at that moment (shorter than its term), so
   * the standby sees the Lease record unchanged across the step. client-java's elector judges expiry
   * by the wall clock and would take the Lease from the healthy leader then. Only the monotonic clock
   * may judge: the holder must stay; and when the leader really dies, the standby still takes over
   * within the usual bound.
   */
  @Test
  void aWallClockStepChangesNothing() throws Exception {
    assertThat(LIBFAKETIME).as("libfaketime shifts the wall clock one replica sees: apt-get install libfaketime")
        .exists();
    String ns = namespace("clock");
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    List<String> names = createWebApps(webApps);
    Path clocks = Files.createDirectories(Path.of("target", "fencing-clocks", ns));
    Map<OperatorProcess, Path> clockOf = new LinkedHashMap<>();
    // The wall clock follows the file; the monotonic clock and timed waits stay real (without the
    // last setting libfaketime makes the JVM's timed waits return at once).
    for (int i = 0; i < 2; i++) {
      Path clock = Files.writeString(clocks.resolve("c" + i), "+0");
      clockOf.put(replica(ns, "c" + i, CLOCK_LEASE, null, Map.of("LD_PRELOAD", LIBFAKETIME.toString(),
          "FAKETIME_TIMESTAMP_FILE", clock.toAbsolutePath().toString(), "FAKETIME_CACHE_DURATION", "1",
          "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0")), clock);
    }
    awaitReady();
    String scenario = "wall clock step (standby +10 min, leader -10 min)";
    try (Churn churn = new Churn(webApps, names, Duration.ofMillis(100), 1_000_000, 24)) {
      OperatorProcess leader = leader(ns);
      OperatorProcess standby = processes.stream().filter(p -> p != leader).findFirst().orElseThrow();
      Thread.sleep(3000);
      Instant stepped = Instant.now();
      signal(leader, "STOP");
      Files.writeString(clockOf.get(standby), "+600");
      Files.writeString(clockOf.get(leader), "-600");
      Thread.sleep(4000);
      signal(leader, "CONT");
      // Without the monotonic veto the standby takes the Lease within a retry period of the step;
      // a whole lease duration after it, the leader has renewed many times over.
      Thread.sleep(CLOCK_LEASE_DURATION.plusSeconds(2).toMillis());
      TermAudit audit = new TermAudit(cluster.auditLog(), ns, "steward-leader", stepped);
      REPORT.record(scenario, "Lease holder a lease duration after the leader resumed", holder(ns).equals(leader.identity()) ? "unchanged" : "changed");
      REPORT.record(scenario, "successful Lease writes by the standby after the step",
          audit.termStart(standby.userAgent(), stepped).isPresent() ? "some" : 0);
      assertThat(audit.termStart(standby.userAgent(), stepped)).as("the standby wrote the Lease after the step").isEmpty();
      assertThat(holder(ns)).isEqualTo(leader.identity());
      assertThat(leader.isRunning()).as("the leader survived a pause shorter than its term").isTrue();

      Instant killed = Instant.now();
      leader.kill();
      awaitNewLeader(ns, leader);
      Instant newTerm = new TermAudit(cluster.auditLog(), ns, "steward-leader", killed)
          .termStart(standby.userAgent(), killed).orElseThrow();
      long takeover = Duration.between(killed, newTerm).toMillis();
      REPORT.record(scenario, "kill -9 of the leader to the shifted standby's first Lease write, ms", takeover);
      assertThat(takeover).isLessThan(Duration.ofSeconds(10 + 1 + 5).toMillis());
    }
    awaitConverged(ns, webApps);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /**
   * Every WebApp converges, with a replica kept running as the operator's Deployment would keep one:
   * a replica whose term ran out exits by design, and on a loaded machine the last one left can. Such
   * replacements are counted in the report; a failure names each replica's state and last warnings.
   */
  private void awaitConverged(String ns, WebApps webApps) throws InterruptedException {
    int[] replacements = {0};
    Runnable keepOneRunning = () -> {
      if (processes.stream().noneMatch(OperatorProcess::isRunning)) {
        replica(ns, "r" + replacements[0]++, SHORT_LEASE, null);
      }
    };
    try {
      Convergence.await(webApps, new AppsV1Api(cluster.adminClient()), ns, Set.of(), Duration.ofMinutes(3),
          keepOneRunning);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; Lease held by " + holder(ns) + "; replicas: " + describe(processes), e);
    } finally {
      REPORT.record("replicas started because none was left running, before converging",
          ns.substring(0, ns.lastIndexOf('-')), replacements[0]);
    }
  }

  /** Each replica: running or its exit code, and its last warnings. */
  static String describe(List<OperatorProcess> replicas) {
    return replicas.stream().map(p -> p.identity() + " (" + (p.isRunning() ? "running" : "exited " + p.exitCode())
        + "): " + p.logTail(400).lines().filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
            .reduce((first, second) -> second).orElse("no warning")).collect(Collectors.joining("; "));
  }

  private String namespace(String scenario) throws ApiException {
    String name = "fence-" + scenario + "-" + Integer.toString(random.nextInt(1 << 20), 36);
    new CoreV1Api(cluster.adminClient()).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name)))
        .execute();
    return name;
  }

  private FaultProxy proxy() {
    FaultProxy proxy = new FaultProxy(cluster.apiServerPort());
    proxies.add(proxy);
    return proxy;
  }

  private OperatorProcess replica(String ns, String name, Map<String, String> extra, FaultProxy proxy) {
    return replica(ns, name, extra, proxy, Map.of());
  }

  private OperatorProcess replica(String ns, String name, Map<String, String> extra, FaultProxy proxy,
      Map<String, String> env) {
    Map<String, String> properties = new LinkedHashMap<>(Map.of("steward.namespaces", ns,
        "steward.leader-election.lease-namespace", ns, "steward.fencing.local-guard", LOCAL_GUARD));
    properties.putAll(extra);
    String identity = name + "-" + ns;
    Path kubeconfig = proxy == null ? cluster.kubeconfigFor("steward-operator")
        : cluster.kubeconfigVia("steward-operator", proxy.url());
    OperatorProcess process = OperatorProcess.start(kubeconfig, identity, properties, OperatorProcess.TEST_JVM_OPTIONS,
        env);
    processes.add(process);
    return process;
  }

  private void awaitReady() {
    await().atMost(Duration.ofMinutes(2)).until(() -> processes.stream().filter(OperatorProcess::isRunning)
        .allMatch(OperatorProcess::isReady));
  }

  private static List<String> createWebApps(WebApps webApps) throws ApiException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < WEBAPPS; i++) {
      webApps.create("app-" + i, WebApps.spec("nginx:1.27", 1, 80));
      names.add("app-" + i);
    }
    return names;
  }

  private OperatorProcess leader(String ns) {
    await().atMost(Duration.ofMinutes(1)).until(() -> {
      String holder = holder(ns);
      return holder != null && processes.stream().anyMatch(p -> p.isRunning() && p.identity().equals(holder));
    });
    String holder = holder(ns);
    return processes.stream().filter(p -> p.identity().equals(holder)).findFirst().orElseThrow();
  }

  private OperatorProcess awaitNewLeader(String ns, OperatorProcess old) {
    return awaitNewLeader(ns, old, () -> { });
  }

  /** As above; {@code replace} starts a replacement once, should every replica but the old leader be gone. */
  private OperatorProcess awaitNewLeader(String ns, OperatorProcess old, Runnable replace) {
    boolean[] replaced = {false};
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> {
      if (!replaced[0] && processes.stream().noneMatch(p -> p != old && p.isRunning())) {
        replaced[0] = true;
        replace.run();
      }
      String holder = holder(ns);
      return holder != null && !holder.isEmpty() && !holder.equals(old.identity());
    });
    String holder = holder(ns);
    return processes.stream().filter(p -> p.identity().equals(holder)).findFirst().orElseThrow();
  }

  private static String holder(String ns) {
    try {
      var spec = leases.readNamespacedLease("steward-leader", ns).execute().getSpec();
      return spec == null ? null : spec.getHolderIdentity();
    } catch (ApiException e) {
      return null;
    }
  }

  /** Stops every replica gracefully, resuming a frozen one first, and forgets them. */
  static void closeAll(List<OperatorProcess> processes) {
    processes.forEach(p -> {
      if (p.isRunning()) {
        signal(p, "CONT");
      }
      p.close();
    });
    processes.clear();
  }

  /** A real signal to the operator's JVM: STOP freezes it as a long GC pause or a frozen VM would. */
  static void signal(OperatorProcess process, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.identity() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (IllegalStateException notRunning) {
      if (process.isRunning()) {
        throw notRunning;
      }
    }
  }

  private static Instant earlier(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static long median(List<Long> values) {
    List<Long> sorted = values.stream().sorted().toList();
    return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
  }

  private static long max(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).max().orElse(0);
  }
}
