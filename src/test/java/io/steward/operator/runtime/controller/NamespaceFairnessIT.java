package io.steward.operator.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.steward.operator.StewardProperties;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.FaultProxy;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Namespaces take turns in the work queue: while one namespace's many new WebApps converge, a spec
 * change in another is applied after a few passes, not behind that namespace's whole backlog (which
 * first in, first out, it would be). Judged from the API server's audit log: between the change
 * reaching it and Steward's patch of the Deployment, how many of the busy namespace's Deployments
 * Steward created. {@code -Dsteward.fairness.webapps=N} sets the backlog.
 *
 * <p>Steward reaches the API server through a {@link FaultProxy} that adds latency, while the test's
 * own writes go direct: Steward then drains the backlog more slowly than the test fills it, however
 * fast the machine, so a backlog is still waiting when the changes come (on a fast machine without
 * it, Steward kept up with the creates and the test could not tell fair from first-come).
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class NamespaceFairnessIT {
  private static final int BUSY = Integer.getInteger("steward.fairness.webapps", 400);
  private static final int CHANGES = 8;
  private static final Duration CONVERGE = Duration.ofMinutes(5);
  /** Each way, on every chunk: each of Steward's requests takes at least twice this. */
  private static final Duration LATENCY = Duration.ofMillis(30);

  @Test
  void aChangeInAQuietNamespaceIsNotQueuedBehindABusyOnesBacklog(LocalCluster cluster, TestNamespace namespace)
      throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String busy = namespace.name();
    String quiet = namespace.sibling(cluster, "quiet");
    try {
      WebApps busyApps = new WebApps(cluster.adminClient(), busy);
      WebApps quietApps = new WebApps(cluster.adminClient(), quiet);
      AppsV1Api apps = new AppsV1Api(cluster.adminClient());
      try (FaultProxy slowPath = new FaultProxy(cluster.apiServerPort());
          InProcessOperator operator = InProcessOperator.start(cluster, busy, "fair-" + busy,
              Map.of("steward.namespaces", busy + "," + quiet,
                  "steward.kubeconfig", cluster.kubeconfigVia("steward-operator", slowPath.url())))) {
        slowPath.latency(LATENCY);
        quietApps.create("steady", WebApps.spec("nginx:1.27", 1, 80));
        Convergence.await(quietApps, apps, quiet, Set.of(), CONVERGE);

        ExecutorService writers = Executors.newFixedThreadPool(4);
        List<Future<?>> created = new ArrayList<>();
        for (int i = 0; i < BUSY; i++) {
          String name = "new-%04d".formatted(i);
          created.add(writers.submit(() -> busyApps.create(name, WebApps.spec("nginx:1.27", 1, 80))));
        }
        // The changes in the quiet namespace, while the busy namespace's creates are still arriving.
        await().atMost(CONVERGE).until(() -> created.stream().filter(Future::isDone).count() >= BUSY / 4);
        for (int i = 1; i <= CHANGES; i++) {
          // A new value each time: a pass that comes after two changes still patches the Deployment.
          int replicas = i + 1;
          quietApps.updateSpec("steady", spec -> spec.withReplicas(replicas));
          Thread.sleep(500);
        }
        for (Future<?> future : created) {
          future.get();
        }
        writers.shutdown();
        Convergence.await(busyApps, apps, busy, Set.of(), CONVERGE);
        Convergence.await(quietApps, apps, quiet, Set.of(), CONVERGE);

        List<AuditLog.Entry> log = cluster.auditLog().entries(e -> e.code() < 300
            && (busy.equals(e.namespace()) || quiet.equals(e.namespace())));
        List<Instant> changes = log.stream().filter(e -> quiet.equals(e.namespace()) && "webapps".equals(e.resource())
            && "steady".equals(e.name()) && e.subresource().isEmpty() && "update".equals(e.verb()))
            .map(AuditLog.Entry::received).toList();
        List<Instant> patches = log.stream().filter(e -> e.fromUserAgentStartingWith(operator.userAgent())
            && quiet.equals(e.namespace()) && "deployments".equals(e.resource()) && "patch".equals(e.verb()))
            .map(AuditLog.Entry::received).toList();
        List<Instant> busyCreates = log.stream().filter(e -> e.fromUserAgentStartingWith(operator.userAgent())
            && busy.equals(e.namespace()) && "deployments".equals(e.resource()) && "create".equals(e.verb()))
            .map(AuditLog.Entry::received).toList();
        assertThat(changes).as("the test's spec changes in the audit log").hasSize(CHANGES);

        List<Long> overtaken = new ArrayList<>();
        List<Long> millis = new ArrayList<>();
        for (Instant change : changes) {
          Instant applied = patches.stream().filter(p -> !p.isBefore(change)).findFirst().orElseThrow(
              () -> new AssertionError("no patch of Deployment " + quiet + "/steady after the change at " + change));
          overtaken.add(busyCreates.stream().filter(c -> c.isAfter(change) && c.isBefore(applied)).count());
          millis.add(Duration.between(change, applied).toMillis());
        }
        long createdAfterLastChange = busyCreates.stream().filter(c -> c.isAfter(changes.get(CHANGES - 1))).count();
        System.out.printf("fairness: %d changes while %d new WebApps converged in another namespace: "
            + "busy Deployments created before each change was applied %s, ms to apply %s; %d created after the last%n",
            CHANGES, BUSY, overtaken, millis, createdAfterLastChange);
        // A change waits behind what is queued and in flight (one per worker each). One that arrives while
        // the previous change is in flight waits for that pass first, so twice that, and the watch's delay.
        long bound = 6L * operator.bean(StewardProperties.class).getWorkers();
        // First-come would make every change wait behind at least what is left after the last one:
        // only with more left than the bound can the test tell fair from first-come.
        assertThat(createdAfterLastChange).as("busy Deployments still to create after the last change")
            .isGreaterThan(bound);
        assertThat(overtaken).as("busy Deployments created before a change was applied")
            .allSatisfy(count -> assertThat(count).isLessThanOrEqualTo(bound));
      }
    } finally {
      new CoreV1Api(cluster.adminClient()).deleteNamespace(quiet).execute();
    }
  }
}
