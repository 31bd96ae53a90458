package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.event.legacy.EventBroadcaster;
import io.kubernetes.client.extended.event.legacy.LegacyEventBroadcaster;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.webapp.DeploymentResource;
import io.steward.operator.webapp.ServiceResource;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.reconcile.OwnedObjectSync;
import io.steward.operator.webapp.reconcile.WebAppEvents;
import io.steward.operator.webapp.reconcile.WebAppReconciler;
import io.steward.operator.webapp.reconcile.WebAppStatusWriter;
import io.steward.operator.runtime.KubernetesClientConfiguration.LeaseNamespace;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the WebApp controller: informer caches, the rate-limited work queue, event sources (WebApps,
 * and owned Deployments and Services mapped to their owner), the reconciler, and the lifecycle that
 * runs it under leader election.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StewardProperties.class)
public class WebAppControllerConfiguration {
  static final String CONTROLLER = "webapp";

  @Bean
  InformerCaches informerCaches(SharedInformerFactory factory, OperatorClients clients, StewardProperties properties,
      MeterRegistry registry) {
    InformerCaches caches = new InformerCaches(factory, clients, properties.getNamespaces());
    caches.bindMetrics(registry);
    return caches;
  }

  @Bean
  ControllerMetrics controllerMetrics(MeterRegistry registry, StewardProperties properties) {
    return new ControllerMetrics(registry, CONTROLLER, properties.getWorkers());
  }

  @Bean
  InstrumentedWorkQueue workQueue(ControllerMetrics metrics, MeterRegistry registry, StewardProperties properties) {
    // Low-priority work enters the queue a worker's worth at a time: a change waits behind at most that.
    InstrumentedWorkQueue queue = new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics,
        properties.getWorkers());
    metrics.watchQueueDepth(registry, CONTROLLER, queue::length);
    return queue;
  }

  @Bean(destroyMethod = "shutdown")
  EventBroadcaster eventBroadcaster(OperatorClients clients) {
    LegacyEventBroadcaster broadcaster = new LegacyEventBroadcaster(new CoreV1Api(clients.requests()));
    broadcaster.startRecording();
    return broadcaster;
  }

  /** The caches the reconciler reads, each holding Steward's own writes until its informer has them. */
  record ReconcilerCaches(ReadYourWritesCache<WebApp> webApps, ReadYourWritesCache<V1Deployment> deployments,
      ReadYourWritesCache<V1Service> services) {}

  @Bean
  ReconcilerCaches reconcilerCaches(InformerCaches caches) {
    return new ReconcilerCaches(new ReadYourWritesCache<>(caches.webApps()),
        new ReadYourWritesCache<>(caches.deployments()), new ReadYourWritesCache<>(caches.services()));
  }

  @Bean
  WebAppReconciler webAppReconciler(ReconcilerCaches caches, OperatorClients clients, EventBroadcaster events,
      OperatorIdentity identity) {
    var json = clients.requests().getJSON().getGson();
    var deployments = new OwnedObjectSync<>(new DeploymentResource(), new GenericKubernetesApi<>(V1Deployment.class,
        V1DeploymentList.class, "apps", "v1", "deployments", clients.requests()), caches.deployments(), json);
    var services = new OwnedObjectSync<>(new ServiceResource(), new GenericKubernetesApi<>(V1Service.class,
        V1ServiceList.class, "", "v1", "services", clients.requests()), caches.services(), json);
    return new WebAppReconciler(caches.webApps(), deployments, services,
        new WebAppStatusWriter(clients.requests(), caches.webApps()),
        new WebAppEvents(events.newRecorder(new V1EventSource().component("steward").host(identity.name()))),
        Clock.systemUTC());
  }

  @Bean
  Controller webAppController(SharedInformerFactory factory, InformerCaches informers, ReconcilerCaches caches,
      InstrumentedWorkQueue queue, WebAppReconciler reconciler, ControllerMetrics metrics, StewardProperties properties) {
    // Events that only echo Steward's own writes are dropped, and so are the WebApp updates that keep
    // the generation (status writes, metadata): only spec changes need a pass. What replays known
    // state (the initial list, re-lists) is queued at low priority.
    OffsetDateTime watchingSince = OffsetDateTime.now(ZoneOffset.UTC);
    informers.addHandlers(
        caches.webApps().skippingEchoes(new QueueingEventHandler<>(queue,
            webApp -> new Request(webApp.getMetadata().getNamespace(), webApp.getMetadata().getName()),
            (before, after) -> !Objects.equals(before.getMetadata().getGeneration(), after.getMetadata().getGeneration()),
            watchingSince)),
        caches.deployments().skippingEchoes(new QueueingEventHandler<>(queue,
            WebAppControllerConfiguration::ownerRequest, (before, after) -> true, watchingSince)),
        caches.services().skippingEchoes(new QueueingEventHandler<>(queue,
            WebAppControllerConfiguration::ownerRequest, (before, after) -> true, watchingSince)));
    return ControllerBuilder.defaultBuilder(factory)
        .withName(CONTROLLER)
        .withWorkQueue(queue)
        .withReconciler(new InstrumentedReconciler(reconciler, metrics))
        .withWorkerCount(properties.getWorkers())
        .withReadyFunc(informers::hasSynced)
        .withReadyTimeout(Duration.ofMinutes(10))
        .build();
  }

  @Bean
  Leadership leadership(OperatorIdentity identity, StewardProperties properties, MeterRegistry registry) {
    return new Leadership(identity.name(), properties.getLeaderElection().getLeaseName(), registry);
  }

  /** What to do when the Lease is lost: exit non-zero, so the pod restarts as a clean candidate. */
  @Bean
  LeadershipLostHandler leadershipLostHandler(ApplicationContext context) {
    return () -> System.exit(SpringApplication.exit(context, () -> 1));
  }

  @Bean
  OperatorLifecycle operatorLifecycle(InformerCaches caches, Controller controller, InstrumentedWorkQueue queue,
      ControllerMetrics metrics, Leadership leadership, StewardProperties properties, OperatorClients clients,
      LeaseNamespace leaseNamespace, LeaseTerm term, WriteFence fence, LeadershipLostHandler leadershipLostHandler) {
    return new OperatorLifecycle(caches, controller, queue, metrics, leadership, properties, clients,
        leaseNamespace.name(), term, fence, leadershipLostHandler);
  }

  @Bean
  InformersHealthIndicator informersHealthIndicator(InformerCaches caches) {
    return new InformersHealthIndicator(caches);
  }

  @Bean
  OperatorHealthIndicator operatorHealthIndicator(OperatorLifecycle lifecycle, Leadership leadership) {
    return new OperatorHealthIndicator(lifecycle, leadership);
  }

  @Bean
  LeaderEndpoint leaderEndpoint(Leadership leadership, StewardProperties properties, LeaseNamespace leaseNamespace,
      OperatorLifecycle lifecycle) {
    return new LeaderEndpoint(leadership, properties.getLeaderElection(), leaseNamespace.name(), lifecycle);
  }

  @Bean
  ReconcilesEndpoint reconcilesEndpoint(ControllerMetrics metrics, InstrumentedWorkQueue queue) {
    return new ReconcilesEndpoint(metrics, queue);
  }

  /** Maps an owned object to its controlling WebApp's request; null (skip) for anything else. */
  static Request ownerRequest(KubernetesObject owned) {
    if (owned.getMetadata().getOwnerReferences() == null) {
      return null;
    }
    for (V1OwnerReference reference : owned.getMetadata().getOwnerReferences()) {
      if (Boolean.TRUE.equals(reference.getController()) && WebApp.KIND.equals(reference.getKind())
          && reference.getApiVersion() != null && reference.getApiVersion().startsWith(WebApp.GROUP + "/")) {
        return new Request(owned.getMetadata().getNamespace(), reference.getName());
      }
    }
    return null;
  }
}
