package io.steward.operator;

import io.steward.operator.runtime.ControllerMetrics;
import io.steward.operator.runtime.Informers;
import io.steward.operator.runtime.InformersHealthIndicator;
import io.steward.operator.runtime.InstrumentedWorkQueue;
import io.steward.operator.runtime.LeaderEndpoint;
import io.steward.operator.runtime.Leadership;
import io.steward.operator.runtime.LeaseNamespace;
import io.steward.operator.runtime.ManagedController;
import io.steward.operator.runtime.OperatorHealthIndicator;
import io.steward.operator.runtime.OperatorLifecycle;
import io.steward.operator.runtime.ReconcilesEndpoint;
import io.steward.operator.runtime.StewardProperties;
import io.steward.operator.webapp.api.WebApp;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What Actuator serves: readiness and liveness, {@code /actuator/leader} and {@code /actuator/reconciles}. */
@Configuration(proxyBeanMethods = false)
public class EndpointsConfiguration {

  @Bean
  InformersHealthIndicator informersHealthIndicator(Informers informers, ManagedController<WebApp> controller) {
    return new InformersHealthIndicator(informers, "webApps", controller.reconciled());
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
}
