package io.steward.operator.webapp.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.cache.KindInformer;
import io.steward.operator.runtime.cache.ReadYourWritesCache;
import io.steward.operator.runtime.client.ApiRequestMetrics;
import io.steward.operator.runtime.client.OperatorClients;
import io.steward.operator.runtime.client.OperatorIdentity;
import io.steward.operator.runtime.controller.BlockingEventBroadcaster;
import io.steward.operator.runtime.controller.ControllerManager;
import io.steward.operator.runtime.controller.TerminalException;
import io.steward.operator.runtime.election.LeaseTerm;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.support.Crds;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.Conditions;
import io.steward.operator.webapp.WebAppConditions;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reconciler, driven directly: no Spring, no work queue, no leader election; one pass at a time
 * on the runtime's real informers against the local API server, each pass judged from the API
 * server's audit log. WebApps are read through a view the test can hold back or alter (as an
 * informer lagging behind, or an older CRD, would show them); everything else is the API server's.
 */
@LocalClusterTest
class WebAppReconcilerIT {
  private static final Duration SETTLE = Duration.ofSeconds(30);
  private static final Set<String> OWNED_AND_STATUS = Set.of("deployments", "services", "webapps");
  private static final JSON JSON = new JSON();

  private static String ns;
  private static String userAgent;
  private static Informers informers;
  private static KindInformer<WebApp> webAppInformer;
  private static BlockingEventBroadcaster events;
  private static WebAppReconciler reconciler;
  private static WebApps webApps;
  private static AppsV1Api adminApps;
  /** What the test shows the reconciler instead of the informer's WebApp, by name. */
  private static final Map<String, WebApp> shown = new ConcurrentHashMap<>();

  @BeforeAll
  static void start(LocalCluster cluster, TestNamespace namespace) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    ns = namespace.name();
    webApps = new WebApps(cluster.adminClient(), ns);
    adminApps = new AppsV1Api(cluster.adminClient());
    OperatorIdentity identity = new OperatorIdentity("direct-" + ns);
    userAgent = identity.userAgent();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ApiClient configured = LocalCluster.clientFor(cluster.kubeconfigFor("steward-operator"), userAgent);
    OperatorClients clients = new OperatorClients(configured, identity,
        new WriteFence(LeaseTerm.unfenced(), true, registry), ApiRequestMetrics.listener(registry));
    SharedInformerFactory factory = new SharedInformerFactory(clients.watches());
    informers = new Informers(factory, clients.watches(), List.of(ns), OwnedObjectSync.FIELD_MANAGER,
        Informers.LIST_WATCH_GRACE, registry);
    ControllerManager manager = new ControllerManager(informers, factory, registry, 1);
    webAppInformer = informers.of(WebAppController.WEBAPPS);
    ReadYourWritesCache<WebApp> view = new ReadYourWritesCache<>((namespaceName, name) -> {
      WebApp held = shown.get(name);
      return held != null ? held : webAppInformer.get(namespaceName, name);
    });
    events = new BlockingEventBroadcaster(new CoreV1Api(clients.requests()));
    events.startRecording();
    reconciler = WebAppController.reconciler(view, manager, clients.requests(),
        events.newRecorder(new V1EventSource().component("steward").host(identity.name())), Clock.systemUTC());
    informers.start();
    informers.synced().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    if (informers != null) {
      informers.stop();
    }
    if (events != null) {
      events.shutdown();
    }
  }

  @Test
  void theFirstPassWritesThreeTimesAndTheNextNone(LocalCluster cluster) throws Exception {
    created("fresh", WebApps.spec("nginx:1.27", 1, 80));
    Instant since = Instant.now();

    assertThat(reconciler.reconcile(request("fresh")).isRequeue()).isFalse();
    List<AuditLog.Entry> first = awaitWrites(cluster, "fresh", since, 3);
    assertThat(first).extracting(e -> e.verb() + " " + e.resource() + subresource(e))
        .containsExactlyInAnyOrder("create deployments", "create services", "patch webapps/status");

    // On a cluster with kube-controller-manager the Deployment's status moves on after the create,
    // and the WebApp's status rightly follows it; otherwise the next pass sends nothing at all.
    Instant secondSince = Instant.now();
    assertThat(reconciler.reconcile(request("fresh")).isRequeue()).isFalse();
    V1Deployment deployment = adminApps.readNamespacedDeployment("fresh", ns).execute();
    boolean deploymentMoved = deployment.getStatus() != null && deployment.getStatus().getObservedGeneration() != null;
    assertNoWritesFor(cluster, "fresh", secondSince, deploymentMoved ? Set.of("deployments", "services") : OWNED_AND_STATUS);
  }

  @Test
  void aNamesakeItDoesNotOwnIsLeftAloneAndReportedAsAConflict(LocalCluster cluster) throws Exception {
    Map<String, String> labels = Map.of("app", "theirs");
    V1Deployment theirs = adminApps.createNamespacedDeployment(ns, new V1Deployment()
        .metadata(new V1ObjectMeta().name("taken").labels(labels))
        .spec(new V1DeploymentSpec().replicas(1).selector(new V1LabelSelector().matchLabels(labels))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("theirs:1")))))))
        .execute();
    created("taken", WebApps.spec("nginx:1.27", 1, null));
    Instant since = Instant.now();

    assertThat(reconciler.reconcile(request("taken")).isRequeue()).as("retried while the namesake is there").isTrue();

    await().atMost(SETTLE).untilAsserted(() -> assertThat(condition("taken", WebAppConditions.DEGRADED).getReason())
        .isEqualTo(WebAppConditions.Reasons.RESOURCE_CONFLICT));
    assertThat(adminApps.readNamespacedDeployment("taken", ns).execute().getMetadata().getGeneration())
        .as("their Deployment unchanged").isEqualTo(theirs.getMetadata().getGeneration());
    assertThat(writes(cluster, "taken", since)).filteredOn(e -> e.resource().equals("deployments") && e.code() < 400)
        .as("no successful write to their Deployment").isEmpty();
  }

  @Test
  void aSpecTheApiServerRefusesIsReportedInItsCondition(LocalCluster cluster) throws Exception {
    WebApp webApp = created("refused", WebApps.spec("nginx:1.27", 1, null));
    // As a CRD without the replicas bounds would let through: the Deployment API refuses it.
    WebApp altered = JSON.deserialize(JSON.serialize(webApp), WebApp.class); // the informer's copy stays as it is
    shown.put("refused", altered.spec(webApp.getSpec().withReplicas(-1)));
    try {
      Instant since = Instant.now();
      try {
        reconciler.reconcile(request("refused"));
      } catch (TerminalException e) {
        // only a new spec can cure it: the runtime does not retry it
      }

      await().atMost(SETTLE).untilAsserted(() -> {
        V1Condition stalled = condition("refused", WebAppConditions.STALLED);
        assertThat(stalled.getStatus()).isEqualTo("True");
        assertThat(stalled.getReason()).isEqualTo(WebAppConditions.Reasons.INVALID_SPEC);
      });
      assertThat(writes(cluster, "refused", since)).filteredOn(e -> e.resource().equals("deployments"))
          .extracting(AuditLog.Entry::code).as("the one create, refused").containsExactly(422);
    } finally {
      shown.remove("refused");
    }
  }

  @Test
  void aConflictIsRetriedQuietly(LocalCluster cluster) throws Exception {
    WebApp stale = created("raced", WebApps.spec("nginx:1.27", 1, null));
    webApps.updateSpec("raced", spec -> spec.withReplicas(2)); // someone else, after the view was taken
    shown.put("raced", stale);
    try {
      Instant since = Instant.now();

      Result result = reconciler.reconcile(request("raced"));

      assertThat(result.isRequeue()).as("retried on fresh data").isTrue();
      AuditLog.Entry statusWrite = awaitWrites(cluster, "raced", since, 2).stream()
          .filter(e -> e.resource().equals("webapps")).findFirst().orElseThrow();
      assertThat(statusWrite.code()).as("the status patch carried the stale resourceVersion").isEqualTo(409);
      WebApp after = webApps.get("raced");
      assertThat(after.getStatus() == null ? List.<V1Condition>of() : after.getStatus().conditionsOrEmpty())
          .as("a lost race is no problem of the WebApp").isEmpty();
    } finally {
      shown.remove("raced");
    }
  }

  @Test
  void aPausedWebAppGetsNoOwnedWrite(LocalCluster cluster) throws Exception {
    WebAppSpec spec = WebApps.spec("nginx:1.27", 1, 80);
    created("paused", new WebAppSpec(spec.image(), spec.replicas(), spec.port(), null, null, null, null, true));
    Instant since = Instant.now();

    assertThat(reconciler.reconcile(request("paused")).isRequeue()).isFalse();

    await().atMost(SETTLE).untilAsserted(() -> assertThat(condition("paused", WebAppConditions.RECONCILING))
        .extracting(V1Condition::getReason).isEqualTo(WebAppConditions.Reasons.PAUSED));
    assertThat(writes(cluster, "paused", since)).extracting(AuditLog.Entry::resource)
        .as("only its status").containsOnly("webapps");
  }

  /** Creates the WebApp and waits until the informer has it, as the controller would. */
  private static WebApp created(String name, WebAppSpec spec) throws Exception {
    webApps.create(name, spec);
    return await().atMost(SETTLE).until(() -> webAppInformer.get(ns, name), w -> w != null);
  }

  private static Request request(String name) {
    return new Request(ns, name);
  }

  private static V1Condition condition(String name, String type) throws Exception {
    V1Condition condition = Conditions.find(webApps.get(name).getStatus().conditionsOrEmpty(), type);
    assertThat(condition).as(type).isNotNull();
    return condition;
  }

  /** The reconciler's writes for the WebApp {@code name}: its owned objects and its status. */
  private static List<AuditLog.Entry> writes(LocalCluster cluster, String name, Instant since) {
    return cluster.auditLog().writesBy(userAgent, since).stream()
        .filter(e -> ns.equals(e.namespace()) && name.equals(e.name()) && OWNED_AND_STATUS.contains(e.resource()))
        .toList();
  }

  private static List<AuditLog.Entry> awaitWrites(LocalCluster cluster, String name, Instant since, int count) {
    return await().atMost(SETTLE).until(() -> writes(cluster, name, since), w -> w.size() >= count);
  }

  /**
   * No write to {@code resources} for {@code name} since {@code since}. The audit log may lag: a later request of the same
   * client, once it is in the log, shows that everything before it is too.
   */
  private static void assertNoWritesFor(LocalCluster cluster, String name, Instant since, Set<String> resources)
      throws Exception {
    String marker = "marker-" + name;
    created(marker, WebApps.spec("nginx:1.27", 1, null));
    reconciler.reconcile(request(marker));
    awaitWrites(cluster, marker, since, 1);
    assertThat(writes(cluster, name, since)).filteredOn(e -> resources.contains(e.resource()))
        .as("writes by a pass over a converged WebApp").isEmpty();
  }

  private static String subresource(AuditLog.Entry entry) {
    return entry.subresource().isEmpty() ? "" : "/" + entry.subresource();
  }
}
