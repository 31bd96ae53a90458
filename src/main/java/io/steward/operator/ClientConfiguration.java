package io.steward.operator;

import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.steward.operator.runtime.ApiRequestMetrics;
import io.steward.operator.runtime.LeaseTerm;
import io.steward.operator.runtime.OperatorClients;
import io.steward.operator.runtime.OperatorIdentity;
import io.steward.operator.runtime.StewardProperties;
import io.steward.operator.runtime.WriteFence;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The connection to the API server. The {@link ApiClient} comes from client-java-spring-integration's
 * auto-configuration (KUBECONFIG, ~/.kube/config, or the pod's service account), unless
 * {@code steward.kubeconfig} names a file. Every request passes the {@link WriteFence}, which needs
 * this replica's {@link LeaseTerm}, and is timed ({@link ApiRequestMetrics}). The {@link SharedInformerFactory} is Steward's own: the
 * auto-configured one binds to client-java's static default client, not to the ApiClient bean.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StewardProperties.class)
public class ClientConfiguration {
  static final String DEFAULT_FALLBACK = "http://localhost:8080";

  @Bean
  @ConditionalOnProperty("steward.kubeconfig")
  ApiClient kubeconfigApiClient(StewardProperties properties) throws IOException {
    try (Reader reader = Files.newBufferedReader(properties.getKubeconfig())) {
      KubeConfig config = KubeConfig.loadKubeConfig(reader);
      config.setFile(properties.getKubeconfig().toFile());
      return ClientBuilder.kubeconfig(config).build();
    }
  }

  @Bean
  OperatorIdentity operatorIdentity(StewardProperties properties) {
    return OperatorIdentity.resolve(properties.getLeaderElection().getIdentity());
  }

  @Bean
  OperatorClients operatorClients(ApiClient apiClient, OperatorIdentity identity, WriteFence fence,
      MeterRegistry registry) {
    if (DEFAULT_FALLBACK.equals(apiClient.getBasePath())) {
      throw new IllegalStateException("No Kubernetes API server configured: set KUBECONFIG or "
          + "steward.kubeconfig to a kubeconfig file, create ~/.kube/config, or run Steward in a pod.");
    }
    return new OperatorClients(apiClient, identity, fence, ApiRequestMetrics.listener(registry));
  }

  /** Latency buckets for the API request timer; a bean, so the registry has it before the first request. */
  @Bean
  MeterFilter apiRequestsHistogram() {
    return ApiRequestMetrics.histogram();
  }

  /** This replica's leadership term; without leader election the only replica always may write. */
  @Bean
  LeaseTerm leaseTerm(StewardProperties properties) {
    StewardProperties.LeaderElection election = properties.getLeaderElection();
    return election.isEnabled()
        ? LeaseTerm.forLease(election.getRenewDeadline(), election.getRetryPeriod(), System::nanoTime)
        : LeaseTerm.unfenced();
  }

  @Bean
  WriteFence writeFence(LeaseTerm term, StewardProperties properties, MeterRegistry registry) {
    return new WriteFence(term, properties.getFencing().isLocalGuard(), registry);
  }

  @Bean
  SharedInformerFactory sharedInformerFactory(OperatorClients clients) {
    return new SharedInformerFactory(clients.watches());
  }
}
