package io.steward.operator;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.controller.ControllerMetrics;
import io.steward.operator.runtime.controller.InstrumentedWorkQueue;
import io.steward.operator.runtime.controller.ManagedController;
import io.steward.operator.runtime.election.Leadership;
import io.steward.operator.runtime.election.LeaseNamespace;
import io.steward.operator.runtime.lifecycle.OperatorLifecycle;
import io.steward.operator.runtime.web.InformersHealthIndicator;
import io.steward.operator.runtime.web.LeaderEndpoint;
import io.steward.operator.runtime.web.OperatorHealthIndicator;
import io.steward.operator.runtime.web.ReconcilesEndpoint;
import io.steward.operator.webapp.api.WebApp;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.boot.info.GitProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What Actuator serves: readiness and liveness, {@code /actuator/leader}, {@code /actuator/reconciles},
 * and {@code steward_build_info} beside the other metrics.
 */
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
    return new LeaderEndpoint(leadership, LifecycleConfiguration.leaderLease(properties, leaseNamespace), lifecycle);
  }

  /**
   * {@code steward_build_info{version,revision}} = 1, so that a query can tell which build each replica
   * runs (Maven's build-info and the git.properties the build writes; "unknown" without them). An
   * info metric of the Prometheus registry: Micrometer would drop the reserved {@code _info} suffix.
   */
  @Bean
  Info buildInfo(PrometheusMeterRegistry registry, ObjectProvider<BuildProperties> build,
      ObjectProvider<GitProperties> git) {
    String version = build.getIfAvailable() == null ? "unknown" : build.getIfAvailable().getVersion();
    String revision = git.getIfAvailable() == null || git.getIfAvailable().getShortCommitId() == null
        ? "unknown" : git.getIfAvailable().getShortCommitId();
    Info info = Info.builder().name("steward_build_info").help("The build this replica runs: its version and git revision")
        .labelNames("version", "revision").register(registry.getPrometheusRegistry());
    info.setLabelValues(version, revision);
    return info;
  }

  @Bean
  ReconcilesEndpoint reconcilesEndpoint(ControllerMetrics metrics, InstrumentedWorkQueue queue) {
    return new ReconcilesEndpoint(metrics, queue);
  }
}
