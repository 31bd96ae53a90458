package io.steward.operator;

import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.steward.operator.runtime.client.ApiRequestMetrics;
import io.steward.operator.runtime.client.ApiServerConnection;
import io.steward.operator.runtime.client.ConnectionWarmUp;
import io.steward.operator.runtime.client.OperatorClients;
import io.steward.operator.runtime.client.OperatorIdentity;
import io.steward.operator.runtime.controller.Tracing;
import io.steward.operator.runtime.election.LeaseTerm;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.sharding.BucketTerms;
import java.io.IOException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The connection to the API server ({@link ApiServerConnection}) and the clients made from it. Every
 * request passes the {@link WriteFence}, which needs this replica's {@link LeaseTerm}, and is timed
 * ({@link ApiRequestMetrics}). The {@link SharedInformerFactory} is bound to these clients, not to
 * client-java's static default client.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StewardProperties.class)
public class ClientConfiguration {
  @Bean
  ApiClient apiClient(StewardProperties properties) throws IOException {
    ApiClient client = ApiServerConnection.connect(properties.getKubeconfig(), properties.getCredentialRefreshPeriod());
    return client.setHttpClient(properties.getTlsCipherOrder().applyTo(client.getHttpClient()));
  }

  @Bean
  OperatorIdentity operatorIdentity(StewardProperties properties) {
    return OperatorIdentity.resolve(properties.getLeaderElection().getIdentity());
  }

  @Bean
  OperatorClients operatorClients(ApiClient apiClient, OperatorIdentity identity, WriteFence fence,
      MeterRegistry registry, Tracing tracing) {
    OperatorClients clients = new OperatorClients(apiClient, identity, fence, ApiRequestMetrics.listener(registry),
        tracing.isOn() ? tracing.apiRequests() : null);
    // Made just before the informers and the elector: connect now, alongside the rest of the start.
    ConnectionWarmUp.begin(clients.requests());
    return clients;
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

  /** Sharded mode judges each write by the term of its bucket ({@link ShardingConfiguration}). */
  @Bean
  WriteFence writeFence(LeaseTerm term, ObjectProvider<BucketTerms> bucketTerms, StewardProperties properties,
      MeterRegistry registry) {
    BucketTerms buckets = bucketTerms.getIfAvailable();
    return buckets != null ? new WriteFence(buckets, properties.getFencing().isLocalGuard(), registry)
        : new WriteFence(term, properties.getFencing().isLocalGuard(), registry);
  }

  @Bean
  SharedInformerFactory sharedInformerFactory(OperatorClients clients) {
    return new SharedInformerFactory(clients.watches());
  }
}
