package io.steward.operator;

import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.client.OperatorClients;
import io.steward.operator.runtime.client.OperatorIdentity;
import io.steward.operator.runtime.controller.ManagedController;
import io.steward.operator.runtime.election.LeaderLease;
import io.steward.operator.runtime.election.Leadership;
import io.steward.operator.runtime.election.LeaseNamespace;
import io.steward.operator.runtime.election.LeaseTerm;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.lifecycle.OperatorLifecycle;
import io.steward.operator.runtime.sharding.BucketOwnership;
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
    return new OperatorLifecycle(informers, controller, leadership, settings(properties, leaseNamespace), clients,
        term, fence, exit, sharding.getIfAvailable());
  }

  static OperatorLifecycle.Settings settings(StewardProperties properties, LeaseNamespace leaseNamespace) {
    return new OperatorLifecycle.Settings(leaderLease(properties, leaseNamespace),
        properties.getFencing().isLocalGuard(), properties.getResyncPeriod(), properties.getShutdownTimeout());
  }

  /** The leader Lease; null with leader election off. */
  static LeaderLease leaderLease(StewardProperties properties, LeaseNamespace leaseNamespace) {
    StewardProperties.LeaderElection election = properties.getLeaderElection();
    return election.isEnabled()
        ? new LeaderLease(election.getLeaseName(), leaseNamespace.name(), election.timings()) : null;
  }
}
