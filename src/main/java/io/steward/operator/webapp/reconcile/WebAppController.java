package io.steward.operator.webapp.reconcile;

import io.kubernetes.client.extended.event.legacy.EventRecorder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.steward.operator.runtime.cache.ReadYourWritesCache;
import io.steward.operator.runtime.cache.WatchedKind;
import io.steward.operator.runtime.controller.ControllerManager;
import io.steward.operator.runtime.controller.ManagedController;
import io.steward.operator.webapp.DeploymentResource;
import io.steward.operator.webapp.ServiceResource;
import io.steward.operator.webapp.SharedSpecStrings;
import io.steward.operator.webapp.WebAppLabels;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppList;
import io.steward.operator.webapp.api.WebAppStatus;
import java.time.Clock;

/**
 * The WebApp controller, declared beside its reconciler (as kubebuilder's {@code SetupWithManager}):
 * what it watches, what wakes a pass, and the reconciler it runs.
 */
public final class WebAppController {
  public static final String NAME = "webapp";

  public static final WatchedKind<WebApp, WebAppList> WEBAPPS = new WatchedKind<>(WebApp.class, WebAppList.class,
      WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL, WebApp.KIND, null, true);
  /**
   * Only what carries Steward's label, which keeps the cache to what Steward owns. A bookmark's
   * object is an empty Deployment whose spec.selector is null, which client-java's own model
   * validation rejects; the runtime's lenient decoding reads it, so Deployments get bookmarks too,
   * and a watch resumed after the server ended it starts from a recent version, not a re-list.
   */
  public static final WatchedKind<V1Deployment, V1DeploymentList> DEPLOYMENTS = new WatchedKind<>(V1Deployment.class,
      V1DeploymentList.class, "apps", "v1", "deployments", "Deployment", WebAppLabels.OWNED_SELECTOR, true);
  public static final WatchedKind<V1Service, V1ServiceList> SERVICES = new WatchedKind<>(V1Service.class,
      V1ServiceList.class, "", "v1", "services", "Service", WebAppLabels.OWNED_SELECTOR, true);

  private WebAppController() {}

  /**
   * WebApps, when added, deleted or their generation changed (a status or metadata update needs no
   * pass, so Steward's own status writes cause no loop); Deployments and Services, on any change,
   * mapped to their controlling WebApp. A cached Deployment shares its spec strings with its WebApp.
   *
   * @param client the client for reads and writes
   */
  public static ManagedController<WebApp> setUp(ControllerManager manager, ApiClient client, EventRecorder events,
      Clock clock) {
    return setUp(manager, client, events, clock, 0);
  }

  /**
   * As above, in sharded mode when {@code buckets} is positive: each pass first labels its WebApp with
   * the WebApp's bucket, and the Deployment and Service carry the label from the WebApp.
   */
  public static ManagedController<WebApp> setUp(ControllerManager manager, ApiClient client, EventRecorder events,
      Clock clock, int buckets) {
    manager.informers().transformBeforeCaching(DEPLOYMENTS,
        new SharedSpecStrings(manager.informers().of(WEBAPPS), WEBAPPS));
    return manager.newController(NAME, WEBAPPS, ControllerManager.generationChanged())
        .owns(DEPLOYMENTS)
        .owns(SERVICES)
        .settledWhen(WebAppController::settled)
        .complete(reconciler(manager.cache(WEBAPPS), manager, client, events, clock, buckets));
  }

  /**
   * Whether a WebApp's status says its last spec was handled and nothing is under way: its generation
   * observed, and Ready or Paused. A replica taking over a bucket handles the others first.
   */
  static boolean settled(WebApp webApp) {
    WebAppStatus status = webApp.getStatus();
    return status != null && status.observedGeneration() != null
        && status.observedGeneration().equals(webApp.getMetadata().getGeneration())
        && (status.phase() == WebAppStatus.Phase.Ready || status.phase() == WebAppStatus.Phase.Paused);
  }

  /**
   * The reconciler on the manager's caches, reading WebApps from {@code webApps}; without the
   * controller around it, a test can drive it pass by pass.
   */
  public static WebAppReconciler reconciler(ReadYourWritesCache<WebApp> webApps, ControllerManager manager,
      ApiClient client, EventRecorder events, Clock clock) {
    return reconciler(webApps, manager, client, events, clock, 0);
  }

  static WebAppReconciler reconciler(ReadYourWritesCache<WebApp> webApps, ControllerManager manager,
      ApiClient client, EventRecorder events, Clock clock, int buckets) {
    var json = client.getJSON().getGson();
    var deployments = new OwnedObjectSync<>(new DeploymentResource(), DEPLOYMENTS.api(client),
        manager.cache(DEPLOYMENTS), json);
    var services = new OwnedObjectSync<>(new ServiceResource(), SERVICES.api(client), manager.cache(SERVICES), json);
    return new WebAppReconciler(webApps, deployments, services, new WebAppStatusWriter(client, webApps),
        new WebAppEvents(events), clock, buckets == 0 ? null : new WebAppBucketLabel(buckets, WEBAPPS.api(client), webApps));
  }
}
