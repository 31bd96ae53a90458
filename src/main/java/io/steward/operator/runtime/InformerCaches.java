package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.util.CallGenerator;
import io.kubernetes.client.util.CallGeneratorParams;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.webapp.WebAppLabels;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppList;
import io.steward.operator.webapp.reconcile.ObjectCache;
import io.steward.operator.webapp.reconcile.OwnedObjectSync;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import okhttp3.Call;

/**
 * The informers Steward reads from: WebApps, and the Deployments and Services that carry Steward's
 * label (the selector keeps the caches to what Steward owns). One set per watched namespace, or one
 * cluster-wide set; each set lives in its own {@link SharedInformerFactory}, because a factory holds
 * one informer per type. They run on every replica, so a standby is warm when it becomes leader.
 */
public final class InformerCaches {
  private static final String ALL_NAMESPACES = "";

  /** How long an informer may fail to list or watch before readiness reports it. */
  public static final Duration LIST_WATCH_GRACE = Duration.ofSeconds(15);

  /** The informers of one namespace (or of all, when {@code namespace} is empty). */
  private record Scope(String namespace, SharedInformerFactory factory, SharedIndexInformer<WebApp> webApps,
      SharedIndexInformer<V1Deployment> deployments, SharedIndexInformer<V1Service> services) {}

  private final Map<String, Scope> scopes = new LinkedHashMap<>();
  private final List<ListWatchHealth> health = new ArrayList<>();

  public InformerCaches(SharedInformerFactory primary, OperatorClients clients, List<String> namespaces) {
    this(primary, clients, namespaces, LIST_WATCH_GRACE);
  }

  public InformerCaches(SharedInformerFactory primary, OperatorClients clients, List<String> namespaces,
      Duration listWatchGrace) {
    List<String> wanted = namespaces.isEmpty() ? List.of(ALL_NAMESPACES) : List.copyOf(namespaces);
    CustomObjectsApi custom = new CustomObjectsApi(clients.watches());
    AppsV1Api apps = new AppsV1Api(clients.watches());
    CoreV1Api core = new CoreV1Api(clients.watches());
    for (String ns : wanted) {
      SharedInformerFactory factory = scopes.isEmpty() ? primary : new SharedInformerFactory(clients.watches());
      boolean all = ns.equals(ALL_NAMESPACES);
      String where = all ? "all namespaces" : "namespace " + ns;
      Informers informers = new Informers(factory, clients.watches(), where, listWatchGrace);
      SharedIndexInformer<WebApp> webApps = informers.add("webapps", params -> all
              ? watchable(custom.listClusterCustomObject(WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL), params)
              : watchable(custom.listNamespacedCustomObject(WebApp.GROUP, WebApp.VERSION, ns, WebApp.PLURAL), params),
          WebApp.class, WebAppList.class);
      // No watch bookmarks for Deployments: a bookmark's object is an empty Deployment whose
      // spec.selector is null, which client-java 25's model validation rejects ("Not a JSON Object:
      // null" in V1LabelSelector); the watch then fails and the informer re-lists every Deployment,
      // about once a minute (the API server's bookmark interval). Services and WebApps parse fine.
      SharedIndexInformer<V1Deployment> deployments = informers.add("deployments", params -> all
              ? apps.listDeploymentForAllNamespaces().labelSelector(WebAppLabels.OWNED_SELECTOR)
                  .resourceVersion(params.resourceVersion).timeoutSeconds(params.timeoutSeconds)
                  .watch(params.watch).buildCall(null)
              : apps.listNamespacedDeployment(ns).labelSelector(WebAppLabels.OWNED_SELECTOR)
                  .resourceVersion(params.resourceVersion).timeoutSeconds(params.timeoutSeconds)
                  .watch(params.watch).buildCall(null),
          V1Deployment.class, V1DeploymentList.class);
      SharedIndexInformer<V1Service> services = informers.add("services", params -> all
              ? core.listServiceForAllNamespaces().labelSelector(WebAppLabels.OWNED_SELECTOR)
                  .resourceVersion(params.resourceVersion).timeoutSeconds(params.timeoutSeconds)
                  .watch(params.watch).allowWatchBookmarks(true).buildCall(null)
              : core.listNamespacedService(ns).labelSelector(WebAppLabels.OWNED_SELECTOR)
                  .resourceVersion(params.resourceVersion).timeoutSeconds(params.timeoutSeconds)
                  .watch(params.watch).allowWatchBookmarks(true).buildCall(null),
          V1Service.class, V1ServiceList.class);
      scopes.put(ns, new Scope(ns, factory, webApps, deployments, services));
    }
  }

  /**
   * Registers informers in one factory, each with a {@link ListWatchHealth} that sees its list and
   * watch failures (instead of client-java's stack trace per retry) and its successful lists.
   */
  private final class Informers {
    private final SharedInformerFactory factory;
    private final ApiClient client;
    private final String where;
    private final Duration grace;

    Informers(SharedInformerFactory factory, ApiClient client, String where, Duration grace) {
      this.factory = factory;
      this.client = client;
      this.where = where;
      this.grace = grace;
    }

    <T extends KubernetesObject, L extends KubernetesListObject> SharedIndexInformer<T> add(String resource,
        CallGenerator calls, Class<T> type, Class<L> listType) {
      ListWatchHealth check = new ListWatchHealth(resource + " in " + where, grace, Clock.systemUTC());
      health.add(check);
      SharedIndexInformer<T> informer = factory.sharedIndexInformerFor(
          check.listerWatcher(client, calls, type, listType), type, 0, check.exceptionHandler());
      informer.setTransform(InformerCaches::keepOnlyStewardsManagedFields);
      return informer;
    }
  }

  /**
   * Of {@code metadata.managedFields}, the cache keeps only Steward's own entries: they tell which
   * fields Steward set before (see OwnedObjectSync); the rest would only cost memory.
   */
  static KubernetesObject keepOnlyStewardsManagedFields(KubernetesObject object) {
    V1ObjectMeta metadata = object.getMetadata();
    if (metadata != null && metadata.getManagedFields() != null) {
      metadata.setManagedFields(metadata.getManagedFields().stream()
          .filter(entry -> OwnedObjectSync.FIELD_MANAGER.equals(entry.getManager())).toList());
    }
    return object;
  }

  /** Informers that have failed to list or watch for longer than the grace period, with their errors. */
  public Map<String, String> failing() {
    Map<String, String> result = new LinkedHashMap<>();
    for (ListWatchHealth check : health) {
      ListWatchHealth.Failure failure = check.failing();
      if (failure != null) {
        result.put(check.name(), "since " + failure.since() + ": " + failure.error());
      }
    }
    return result;
  }

  /**
   * {@code steward_informer_failing{informer}} (1 while an informer has failed for longer than the
   * grace period) and {@code steward_informer_list_watch_failures_total{informer}}.
   */
  public void bindMetrics(MeterRegistry registry) {
    for (ListWatchHealth check : health) {
      Gauge.builder("steward_informer_failing", check, c -> c.failing() == null ? 0 : 1)
          .description("1 while the informer has failed to list or watch for longer than its grace period")
          .tag("informer", check.name()).register(registry);
      FunctionCounter.builder("steward_informer_list_watch_failures", check, ListWatchHealth::failures)
          .description("Failed lists and watches of the informer").tag("informer", check.name()).register(registry);
    }
  }

  private static Call watchable(CustomObjectsApi.APIlistClusterCustomObjectRequest request, CallGeneratorParams params)
      throws io.kubernetes.client.openapi.ApiException {
    return request.resourceVersion(params.resourceVersion).timeoutSeconds(params.timeoutSeconds)
        .watch(params.watch).allowWatchBookmarks(true).buildCall(null);
  }

  private static Call watchable(CustomObjectsApi.APIlistNamespacedCustomObjectRequest request, CallGeneratorParams params)
      throws io.kubernetes.client.openapi.ApiException {
    return request.resourceVersion(params.resourceVersion).timeoutSeconds(params.timeoutSeconds)
        .watch(params.watch).allowWatchBookmarks(true).buildCall(null);
  }

  public void addHandlers(ResourceEventHandler<WebApp> webApps, ResourceEventHandler<V1Deployment> deployments,
      ResourceEventHandler<V1Service> services) {
    for (Scope scope : scopes.values()) {
      scope.webApps().addEventHandler(webApps);
      scope.deployments().addEventHandler(deployments);
      scope.services().addEventHandler(services);
    }
  }

  public ObjectCache<WebApp> webApps() {
    return cache(Scope::webApps);
  }

  public ObjectCache<V1Deployment> deployments() {
    return cache(Scope::deployments);
  }

  public ObjectCache<V1Service> services() {
    return cache(Scope::services);
  }

  private <T extends KubernetesObject> ObjectCache<T> cache(Function<Scope, SharedIndexInformer<T>> informer) {
    Map<String, Lister<T>> listers = new LinkedHashMap<>();
    scopes.forEach((ns, scope) -> listers.put(ns, new Lister<>(informer.apply(scope).getIndexer())));
    Lister<T> all = listers.get(ALL_NAMESPACES);
    return (namespace, name) -> {
      Lister<T> lister = all != null ? all : listers.get(namespace);
      return lister == null ? null : lister.namespace(namespace).get(name);
    };
  }

  /** Every cached WebApp, for the periodic resync. */
  public List<WebApp> allWebApps() {
    List<WebApp> all = new ArrayList<>();
    scopes.values().forEach(scope -> all.addAll(scope.webApps().getIndexer().list()));
    return all;
  }

  /** Number of WebApps in the caches. */
  public int webAppCount() {
    return scopes.values().stream().mapToInt(s -> s.webApps().getIndexer().list().size()).sum();
  }

  public boolean hasSynced() {
    return unsynced().isEmpty();
  }

  /** Informers that have not completed their first list, for health details. */
  public List<String> unsynced() {
    List<String> result = new ArrayList<>();
    for (Scope scope : scopes.values()) {
      String where = scope.namespace().isEmpty() ? "all namespaces" : "namespace " + scope.namespace();
      if (!scope.webApps().hasSynced()) {
        result.add("webapps in " + where);
      }
      if (!scope.deployments().hasSynced()) {
        result.add("deployments in " + where);
      }
      if (!scope.services().hasSynced()) {
        result.add("services in " + where);
      }
    }
    return result;
  }

  public List<String> namespaces() {
    return scopes.keySet().stream().map(ns -> ns.isEmpty() ? "*" : ns).toList();
  }

  public void start() {
    scopes.values().forEach(scope -> scope.factory().startAllRegisteredInformers());
  }

  public void stop() {
    scopes.values().forEach(scope -> scope.factory().stopAllRegisteredInformers());
  }
}
