package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.ApiResponse;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.steward.operator.support.Convergence;
import io.steward.operator.support.OperatorProcess;
import io.steward.operator.support.WebApps;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chart's FlowSchema and PriorityLevelConfiguration for Steward's Lease requests, on the real API
 * server's API Priority and Fairness: a Lease request by Steward's ServiceAccount lands in the chart's
 * priority level (the API server says so in its response headers), and with a priority level that
 * throttles all of Steward's other requests hard and a flood of reads as Steward's user, two replicas
 * of the built jar lose no Lease (judged by the Lease itself and the audit log) and converge after.
 *
 * <p>{@code -Dsteward.flowcontrol.withoutSchema=true} installs everything but the chart's FlowSchema:
 * the Lease requests then share the throttled level and the same test fails.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LeaseFlowControlIT {
  private static final boolean WITHOUT_SCHEMA = Boolean.getBoolean("steward.flowcontrol.withoutSchema");
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final Duration FLOOD = FULL ? Duration.ofMinutes(10) : Duration.ofSeconds(20);
  private static final int FLOOD_THREADS = 8;
  private static final Duration RENEW_DEADLINE = Duration.ofSeconds(4);

  private static LocalCluster cluster;
  private static RenderedChart chart;
  private static String ns;
  private static Manifests throttle;
  private static final List<OperatorProcess> replicas = new ArrayList<>();

  @BeforeAll
  static void installChartWithoutItsDeployment(LocalCluster localCluster, TestNamespace namespace) throws Exception {
    cluster = localCluster;
    ns = namespace.name();
    chart = RenderedChart.installWithoutItsDeployment(cluster, ns, WITHOUT_SCHEMA
        ? Set.of("FlowSchema", "PriorityLevelConfiguration") : Set.of());
  }

  @AfterAll
  static void cleanUp() {
    replicas.forEach(OperatorProcess::close);
    if (cluster != null) {
      DeployTesting.deleteClusterScoped(cluster, throttle);
      DeployTesting.deleteClusterScoped(cluster, chart == null ? null : chart.manifests);
    }
  }

  @Test
  @Order(1)
  void stewardsLeaseRequestsLandInTheChartsPriorityLevelAndItsOtherRequestsDoNot() throws Exception {
    if (WITHOUT_SCHEMA) {
      return;
    }
    String flowSchemaUid = uid("flowschemas", Manifests.name(chart.manifests.single("FlowSchema")));
    String levelUid = uid("prioritylevelconfigurations", Manifests.name(chart.manifests.single("PriorityLevelConfiguration")));
    ApiClient steward = stewardClient("probe");
    CoordinationV1Api leases = new CoordinationV1Api(steward);
    // The Lease Steward would create, created by Steward's ServiceAccount itself.
    leases.createNamespacedLease(ns, new V1Lease().metadata(new V1ObjectMeta().name(chart.leaseName()))
        .spec(new V1LeaseSpec())).execute();
    // APF may take a moment to see a new FlowSchema.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      ApiResponse<V1Lease> read = leases.readNamespacedLease(chart.leaseName(), ns).executeWithHttpInfo();
      assertThat(header(read, "X-Kubernetes-PF-FlowSchema-UID")).isEqualTo(flowSchemaUid);
      assertThat(header(read, "X-Kubernetes-PF-PriorityLevel-UID")).isEqualTo(levelUid);
    });
    ApiResponse<?> list = new AppsV1Api(steward).listNamespacedDeployment(ns).executeWithHttpInfo();
    assertThat(header(list, "X-Kubernetes-PF-PriorityLevel-UID")).as("priority level of Steward's other requests")
        .isNotEmpty().isNotEqualTo(levelUid);
    new CoordinationV1Api(cluster.adminClient()).deleteNamespacedLease(chart.leaseName(), ns).execute();
  }

  @Test
  @Order(2)
  void aFloodOfStewardsReadsInAThrottledLevelCostsNoLease() throws Exception {
    throttleStewardsOtherRequests();
    WebApps webApps = new WebApps(cluster.adminClient(), ns);
    startReplica("steward-6f9d8c7b5-apf0");
    startReplica("steward-6f9d8c7b5-apf1");
    await().atMost(ChartEndToEnd.START).until(() -> replicas.stream().allMatch(OperatorProcess::isReady));
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      names.add("throttled-" + i);
      webApps.create("throttled-" + i, WebApps.spec("nginx:1.27", 1, 80));
    }
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    Convergence.await(webApps, apps, ns, Set.of(), ChartEndToEnd.CONVERGE);
    V1Lease before = lease();

    Instant start = Instant.now();
    Flood flood = new Flood(stewardClient("flood"));
    for (int i = 0; Duration.between(start, Instant.now()).compareTo(FLOOD) < 0; i++) {
      // Keep the leader busy too: its writes share the throttled level with the flood.
      String name = names.get(i % names.size());
      int replicasWanted = 1 + i % 3;
      webApps.updateSpec(name, spec -> spec.withReplicas(replicasWanted));
      Thread.sleep(500);
    }
    flood.close();
    Instant end = Instant.now();
    V1Lease after = lease();

    List<AuditLog.Entry> leaseRequests = cluster.auditLog().entries(e -> e.fromUserAgentStartingWith("steward/")
        && "leases".equals(e.resource()) && ns.equals(e.namespace()) && !e.received().isBefore(start)
        && !e.received().isAfter(end)).stream().sorted(Comparator.comparing(AuditLog.Entry::received)).toList();
    List<AuditLog.Entry> renewals = leaseRequests.stream().filter(e -> "update".equals(e.verb())
        && e.code() >= 200 && e.code() < 300 && ("steward/" + before.getSpec().getHolderIdentity()).equals(e.userAgent()))
        .toList();
    long longestGap = 0;
    for (int i = 1; i < renewals.size(); i++) {
      longestGap = Math.max(longestGap, Duration.between(renewals.get(i - 1).received(), renewals.get(i).received()).toMillis());
    }
    long throttledLease = leaseRequests.stream().filter(e -> e.code() == 429).count();
    System.out.printf("flow control: %d s flood by %d threads: %d reads sent, %d refused with 429; Lease requests %d "
            + "(%d refused with 429), leader renewals %d, longest gap between renewals %d ms; transitions %s -> %s, "
            + "holder %s -> %s%n",
        Duration.between(start, end).toSeconds(), FLOOD_THREADS, flood.sent.get(), flood.throttled.get(),
        leaseRequests.size(), throttledLease, renewals.size(), longestGap, before.getSpec().getLeaseTransitions(),
        after.getSpec().getLeaseTransitions(), before.getSpec().getHolderIdentity(), after.getSpec().getHolderIdentity());

    // The flood was really throttled (otherwise this proves nothing) ...
    assertThat(flood.throttled.get()).as("reads refused with 429 in the throttled priority level").isPositive();
    // ... and no Lease was lost: same holder, no transition, renewals never further apart than the renew deadline.
    assertThat(after.getSpec().getHolderIdentity()).isEqualTo(before.getSpec().getHolderIdentity());
    assertThat(after.getSpec().getLeaseTransitions()).isEqualTo(before.getSpec().getLeaseTransitions());
    assertThat(throttledLease).as("Lease requests refused with 429").isZero();
    assertThat(longestGap).as("longest gap between the leader's renewals, ms").isLessThan(RENEW_DEADLINE.toMillis());
    assertThat(replicas).allSatisfy(r -> assertThat(r.isRunning()).as("%s running", r.identity()).isTrue());
    Duration converged = Convergence.await(webApps, apps, ns, Set.of(), ChartEndToEnd.CONVERGE);
    System.out.printf("flow control: converged %d ms after the flood%n", converged.toMillis());
  }

  /**
   * A priority level with the least concurrency there is and no queue, for every other request of
   * Steward's ServiceAccount (after the chart's FlowSchema, before the default ones).
   */
  private static void throttleStewardsOtherRequests() throws Exception {
    String name = "steward-throttled-" + ns;
    String account = chart.serviceAccountName();
    throttle = Manifests.parse("""
        apiVersion: flowcontrol.apiserver.k8s.io/v1
        kind: PriorityLevelConfiguration
        metadata:
          name: %1$s
        spec:
          type: Limited
          limited:
            nominalConcurrencyShares: 1
            lendablePercent: 0
            borrowingLimitPercent: 0
            limitResponse:
              type: Reject
        ---
        apiVersion: flowcontrol.apiserver.k8s.io/v1
        kind: FlowSchema
        metadata:
          name: %1$s
        spec:
          priorityLevelConfiguration:
            name: %1$s
          matchingPrecedence: 1000
          distinguisherMethod:
            type: ByUser
          rules:
            - subjects:
                - kind: ServiceAccount
                  serviceAccount: {name: %2$s, namespace: %3$s}
              resourceRules:
                - {apiGroups: ["*"], resources: ["*"], verbs: ["*"], namespaces: ["*"], clusterScope: true}
              nonResourceRules:
                - {verbs: ["*"], nonResourceURLs: ["*"]}
        """.formatted(name, account, ns));
    Path file = Path.of("target", "deploy-it", ns, "throttle.yaml");
    Files.writeString(file, throttle.text());
    new Kubectl(cluster.kubeconfig()).apply(file).orFail("kubectl apply of the throttling priority level");
  }

  /** Reads as Steward's user, as fast as they go, from several threads, until closed. */
  private static final class Flood implements AutoCloseable {
    final AtomicInteger sent = new AtomicInteger();
    final AtomicInteger throttled = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    Flood(ApiClient client) {
      AppsV1Api apps = new AppsV1Api(client);
      CoreV1Api core = new CoreV1Api(client);
      for (int i = 0; i < FLOOD_THREADS; i++) {
        boolean deployments = i % 2 == 0;
        Thread thread = new Thread(() -> {
          while (running.get()) {
            sent.incrementAndGet();
            try {
              if (deployments) {
                apps.listDeploymentForAllNamespaces().execute();
              } else {
                core.listServiceForAllNamespaces().execute();
              }
            } catch (ApiException e) {
              if (e.getCode() == 429) {
                throttled.incrementAndGet();
              }
            }
          }
        }, "flood-" + i);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread thread : threads) {
        thread.join(30_000);
      }
    }
  }

  private static void startReplica(String name) {
    replicas.add(chart.startReplica(cluster, name, List.of()));
  }

  private static ApiClient stewardClient(String userAgent) {
    return LocalCluster.clientFor(chart.serviceAccount(cluster).writeKubeconfig(cluster,
        Path.of("target", "deploy-it", ns, "clients", userAgent + ".kubeconfig")), userAgent);
  }

  private static V1Lease lease() throws ApiException {
    return new CoordinationV1Api(cluster.adminClient()).readNamespacedLease(chart.leaseName(), ns).execute();
  }

  private static String uid(String plural, String name) throws ApiException {
    return new DynamicKubernetesApi("flowcontrol.apiserver.k8s.io", "v1", plural, cluster.adminClient()).get(name)
        .throwsApiException().getObject().getMetadata().getUid();
  }

  private static String header(ApiResponse<?> response, String name) {
    return response.getHeaders().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
        .flatMap(e -> e.getValue().stream()).findFirst().orElse("");
  }
}
