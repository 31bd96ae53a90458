package io.steward.operator;

import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.runtime.BucketOwnership;
import io.steward.operator.runtime.Informers;
import io.steward.operator.runtime.LeaseNamespace;
import io.steward.operator.runtime.LeaseTerm;
import io.steward.operator.runtime.Leadership;
import io.steward.operator.runtime.ManagedController;
import io.steward.operator.runtime.OperatorClients;
import io.steward.operator.runtime.OperatorIdentity;
import io.steward.operator.runtime.OperatorLifecycle;
import io.steward.operator.runtime.StewardProperties;
import io.steward.operator.runtime.WriteFence;
import io.steward.operator.webapp.api.WebApp;
import java.io.IOException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Election and lifecycle: the Lease, this replica's view of leadership, and the lifecycle that runs
 * the informers everywhere and the controller on the leader, and ends the process through
 * {@link ProcessExit}.
 */
@Configuration(proxyBeanMethods = false)
public class LifecycleConfiguration {

  @Bean
  LeaseNamespace leaseNamespace(StewardProperties properties) throws IOException {
    return LeaseNamespace.resolve(properties.getLeaderElection().getLeaseNamespace());
  }

  @Bean
  Leadership leadership(OperatorIdentity identity, StewardProperties properties, MeterRegistry registry) {
    return new Leadership(identity.name(), properties.getLeaderElection().getLeaseName(), registry);
  }

  @Bean
  ProcessExit processExit(ConfigurableApplicationContext context) {
    return new ProcessExit(context);
  }

  @Bean
  OperatorLifecycle operatorLifecycle(Informers informers, ManagedController<WebApp> controller, Leadership leadership,
      StewardProperties properties, OperatorClients clients, LeaseNamespace leaseNamespace, LeaseTerm term,
      WriteFence fence, ProcessExit exit, ObjectProvider<BucketOwnership> sharding) {
    return new OperatorLifecycle(informers, controller, leadership, properties, clients, leaseNamespace.name(), term,
        fence, exit, sharding.getIfAvailable());
  }
}
