package io.steward.operator.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Service;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.FaultProxy;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Delete and re-create under the same name while Steward's watches are cut now and then: each new
 * WebApp has a new UID, its predecessor's Deployment and Service wait for garbage collection, and
 * Steward's caches and its record of its own writes see deletions and creations out of order or, over
 * a cut, not at all. When it is quiet again, every WebApp must have a Deployment and a Service of its
 * own (controlled by its current UID, as its spec says) and Steward must hold no write its informers
 * have not shown (its {@code steward_cache_unconfirmed_writes}, read from its metrics, back at zero).
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class RecreateIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final ReliabilityReport REPORT = ReliabilityReport.shared();
  private static final int CYCLES = FULL ? 1_000 : 60;
  private static final int NAMES = 10;
  private static final String SCENARIO = "delete and re-create under the same name (watches cut)";

  @AfterAll
  static void writeReport() {
    REPORT.write(Path.of("target", "reliability"));
  }

  @Test
  void everyRecreatedWebAppConvergesAndNoWriteRecordIsLeft(LocalCluster cluster) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    String ns = "recreate-" + Long.toString(System.nanoTime() % 1_000_000, 36);
    new CoreV1Api(cluster.adminClient()).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(ns)))
        .execute();
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    Random random = new Random(31);

    try (FaultProxy proxy = new FaultProxy(cluster.apiServerPort());
        OperatorProcess operator = OperatorProcess.start(cluster.kubeconfigVia("steward-operator", proxy.url()),
            "recreate-" + ns, Map.of("steward.namespaces", ns, "steward.leader-election.enabled", "false"),
            OperatorProcess.TEST_JVM_OPTIONS)) {
      await().atMost(Duration.ofMinutes(2)).until(operator::isReady);
      Instant start = Instant.now();
      int cuts = 0;
      int blackouts = 0;
      for (int cycle = 0; cycle < CYCLES; cycle++) {
        String name = "app-" + random.nextInt(NAMES);
        if (webApps.tryCreate(name, spec(cycle)).isSuccess()) {
          Thread.sleep(random.nextInt(40));
        }
        deleteIfPresent(webApps, name);
        if (random.nextBoolean()) {
          Thread.sleep(random.nextInt(40));
          webApps.tryCreate(name, spec(cycle)); // straight back, a new UID; may meet the old one still going
        }
        if (cycle % 25 == 12) {
          proxy.resetConnections(); // every watch breaks; Steward re-watches from where it was
          cuts++;
        } else if (cycle % 50 == 30) {
          proxy.mode(FaultProxy.Mode.BLACKHOLE); // a longer cut: whatever happens now, Steward learns later
          Thread.sleep(1500);
          proxy.resetConnections();
          proxy.mode(FaultProxy.Mode.PASS);
          blackouts++;
        }
      }
      // Every name ends with a WebApp, so each must converge; the last spec differs from the first.
      for (int i = 0; i < NAMES; i++) {
        webApps.tryCreate("app-" + i, spec(CYCLES));
      }
      Instant quiet = Instant.now();
      List<String> stuck = new ArrayList<>();
      try {
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
            .until(() -> stuck(webApps, apps, core, ns, stuck).isEmpty());
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError("WebApps left stuck: " + stuck, e);
      }
      Duration settled = Duration.between(quiet, Instant.now());
      await().atMost(Duration.ofMinutes(1)).until(() -> unconfirmedWrites(operator) == 0);

      REPORT.record(SCENARIO, "cycles / names / connection resets / 1.5 s blackouts",
          CYCLES + " / " + NAMES + " / " + cuts + " / " + blackouts);
      REPORT.record(SCENARIO, "cycles took, s", Duration.between(start, quiet).toMillis() / 1000.0);
      REPORT.record(SCENARIO, "quiet to every WebApp converged with its own objects, s", settled.toMillis() / 1000.0);
      REPORT.record(SCENARIO, "WebApps left stuck", 0);
      REPORT.record(SCENARIO, "Steward's unconfirmed writes when quiet", 0);
      assertThat(operator.isRunning()).isTrue();
    }
  }

  private static io.steward.operator.webapp.api.WebAppSpec spec(int cycle) {
    return WebApps.spec("nginx:1." + (cycle % 7 + 20), 1 + cycle % 2, 80);
  }

  private static void deleteIfPresent(WebApps webApps, String name) {
    try {
      webApps.delete(name);
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Each WebApp's problem, if any: its objects missing, another UID's, or not as its spec says. */
  private static List<String> stuck(WebApps webApps, AppsV1Api apps, CoreV1Api core, String ns, List<String> stuck)
      throws ApiException {
    Map<String, V1Deployment> deployments = apps.listNamespacedDeployment(ns).execute().getItems().stream()
        .collect(Collectors.toMap(d -> d.getMetadata().getName(), Function.identity()));
    Map<String, V1Service> services = core.listNamespacedService(ns).execute().getItems().stream()
        .collect(Collectors.toMap(s -> s.getMetadata().getName(), Function.identity()));
    stuck.clear();
    for (WebApp webApp : webApps.list()) {
      String name = webApp.getMetadata().getName();
      String uid = webApp.getMetadata().getUid();
      V1Deployment deployment = deployments.get(name);
      V1Service service = services.get(name);
      if (webApp.getStatus() == null
          || !Objects.equals(webApp.getStatus().observedGeneration(), webApp.getMetadata().getGeneration())) {
        stuck.add(name + ": status not of generation " + webApp.getMetadata().getGeneration());
      } else if (deployment == null || !uid.equals(controller(deployment.getMetadata()))) {
        stuck.add(name + ": no Deployment of UID " + uid);
      } else if (service == null || !uid.equals(controller(service.getMetadata()))) {
        stuck.add(name + ": no Service of UID " + uid);
      } else if (!webApp.getSpec().image().equals(
          deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
          || webApp.getSpec().replicasOrDefault() != deployment.getSpec().getReplicas()) {
        stuck.add(name + ": Deployment differs from spec");
      }
    }
    return stuck;
  }

  private static String controller(V1ObjectMeta metadata) {
    List<V1OwnerReference> references = metadata.getOwnerReferences();
    return references == null ? null : references.stream().filter(r -> Boolean.TRUE.equals(r.getController()))
        .map(V1OwnerReference::getUid).findFirst().orElse(null);
  }

  /** The sum of Steward's {@code steward_cache_unconfirmed_writes} over kinds, from its Prometheus page. */
  private static double unconfirmedWrites(OperatorProcess operator) {
    List<Double> series = operator.metricValues("steward_cache_unconfirmed_writes");
    assertThat(series).as("steward_cache_unconfirmed_writes series (one per watched kind)").hasSize(3);
    return series.stream().mapToDouble(Double::doubleValue).sum();
  }

}
