package io.steward.operator;

import io.kubernetes.client.extended.event.legacy.EventBroadcaster;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.client.OperatorClients;
import io.steward.operator.runtime.client.OperatorIdentity;
import io.steward.operator.runtime.controller.BlockingEventBroadcaster;
import io.steward.operator.runtime.controller.ControllerManager;
import io.steward.operator.runtime.controller.ControllerMetrics;
import io.steward.operator.runtime.controller.InstrumentedWorkQueue;
import io.steward.operator.runtime.controller.ManagedController;
import io.steward.operator.runtime.controller.Tracing;
import io.steward.operator.runtime.sharding.BucketGate;
import io.steward.operator.runtime.sharding.BucketInformers;
import io.steward.operator.webapp.WebAppMetrics;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.reconcile.OwnedObjectSync;
import io.steward.operator.webapp.reconcile.WebAppController;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The controller: the informers and caches of the runtime, and the WebApp controller declared on
 * them ({@link WebAppController#setUp}).
 */
@Configuration(proxyBeanMethods = false)
public class ControllerConfiguration {

  @Bean
  Informers informers(SharedInformerFactory factory, OperatorClients clients, StewardProperties properties,
      MeterRegistry registry) {
    return new Informers(factory, clients.watches(), properties.getNamespaces(), OwnedObjectSync.FIELD_MANAGER,
        Informers.LIST_WATCH_GRACE, registry, properties.getSharding().isEnabled() ? BucketInformers.UNBUCKETED : null,
        properties.isStreamingLists());
  }

  @Bean
  ControllerManager controllerManager(Informers informers, SharedInformerFactory factory, MeterRegistry registry,
      StewardProperties properties, Tracing tracing, ObjectProvider<BucketGate> gate) {
    ControllerManager manager = new ControllerManager(informers, factory, registry, properties.getWorkers(), tracing);
    gate.ifAvailable(bucketGate -> manager.wrapReconcilers(bucketGate::around));
    return manager;
  }

  @Bean(destroyMethod = "shutdown")
  EventBroadcaster eventBroadcaster(OperatorClients clients) {
    BlockingEventBroadcaster broadcaster = new BlockingEventBroadcaster(new CoreV1Api(clients.requests()));
    broadcaster.startRecording();
    return broadcaster;
  }

  @Bean
  ManagedController<WebApp> webAppController(ControllerManager manager, OperatorClients clients,
      EventBroadcaster events, OperatorIdentity identity, StewardProperties properties) {
    return WebAppController.setUp(manager, clients.requests(),
        events.newRecorder(new V1EventSource().component("steward").host(identity.name())), Clock.systemUTC(),
        properties.getSharding().isEnabled() ? properties.getSharding().getBuckets() : 0);
  }

  /** WebApps by phase and stalled ones by reason, counted from the informer cache. */
  @Bean
  WebAppMetrics webAppMetrics(ManagedController<WebApp> controller, MeterRegistry registry) {
    return new WebAppMetrics(registry, controller.reconciled());
  }

  @Bean
  ControllerMetrics controllerMetrics(ManagedController<WebApp> controller) {
    return controller.metrics();
  }

  @Bean
  InstrumentedWorkQueue workQueue(ManagedController<WebApp> controller) {
    return controller.queue();
  }
}
