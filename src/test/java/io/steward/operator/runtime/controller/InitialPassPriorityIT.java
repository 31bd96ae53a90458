package io.steward.operator.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A change someone makes while a restarted operator works through its initial pass is not queued
 * behind that pass: the initial list waits in the queue's low-priority lane (as in controller-runtime).
 * Judged from the API server's audit log: the order in which Steward's writes reached it.
 */
@LocalClusterTest(shape = LocalCluster.Shape.API)
class InitialPassPriorityIT {
  private static final int WAITING = 300;
  private static final Duration CONVERGE = Duration.ofSeconds(120);

  @Test
  void aSpecChangeOvertakesTheInitialPass(LocalCluster cluster, TestNamespace namespace) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String ns = namespace.name();
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());

    // One WebApp converged by an operator that then stops; more created while none runs.
    try (InProcessOperator first = InProcessOperator.start(cluster, ns, "first-" + ns, Map.of())) {
      webApps.create("changed", WebApps.spec("nginx:1.27", 1, 80));
      Convergence.await(webApps, apps, ns, Set.of(), CONVERGE);
    }
    for (int i = 0; i < WAITING; i++) {
      webApps.create("waiting-%03d".formatted(i), WebApps.spec("nginx:1.27", 1, 80));
    }

    Instant since = Instant.now();
    try (InProcessOperator restarted = InProcessOperator.start(cluster, ns, "restarted-" + ns, Map.of())) {
      // Once a few passes are done, "changed" (first in the lists, and converged) has had its own.
      ControllerMetrics metrics = restarted.bean(ControllerMetrics.class);
      await().atMost(CONVERGE).until(() -> metrics.reconciles() >= 10);
      webApps.updateSpec("changed", spec -> spec.withImage("nginx:1.28"));
      Convergence.await(webApps, apps, ns, Set.of(), CONVERGE);

      List<AuditLog.Entry> writes = cluster.auditLog().entries(e -> e.fromUserAgentStartingWith(restarted.userAgent())
          && e.mutating() && ns.equals(e.namespace()) && !e.received().isBefore(since)
          && "deployments".equals(e.resource()));
      int update = -1;
      for (int i = 0; i < writes.size(); i++) {
        if ("patch".equals(writes.get(i).verb()) && "changed".equals(writes.get(i).name())) {
          update = i;
        }
      }
      assertThat(update).as("Steward's patch of Deployment changed").isNotNegative();
      long createdAfter = writes.subList(update + 1, writes.size()).stream()
          .filter(e -> "create".equals(e.verb())).count();
      System.out.printf("initial pass: %d of %d Deployments created after the change was applied%n", createdAfter,
          WAITING);
      // First in, first out, the change would wait behind every create still queued: none after it.
      assertThat(createdAfter).as("Deployments of the initial pass created after the change was applied")
          .isGreaterThan(WAITING / 2);
    }
  }
}
