package io.steward.operator.runtime;

import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The connection to the API server. The {@link ApiClient} comes from client-java-spring-integration's
 * auto-configuration (KUBECONFIG, ~/.kube/config, or the pod's service account), unless
 * {@code steward.kubeconfig} names a file. The {@link SharedInformerFactory} is Steward's own: the
 * auto-configured one binds to client-java's static default client, not to the ApiClient bean.
 */
@Configuration(proxyBeanMethods = false)
public class KubernetesClientConfiguration {
  static final String DEFAULT_FALLBACK = "http://localhost:8080";
  private static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

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
  OperatorClients operatorClients(ApiClient apiClient, OperatorIdentity identity, WriteFence fence) {
    if (DEFAULT_FALLBACK.equals(apiClient.getBasePath())) {
      throw new IllegalStateException("No Kubernetes API server configured: set KUBECONFIG or "
          + "steward.kubeconfig to a kubeconfig file, create ~/.kube/config, or run Steward in a pod.");
    }
    return new OperatorClients(apiClient, identity, fence);
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

  /** Namespace of the leader Lease: configured, else the pod's, else "default". */
  @Bean
  LeaseNamespace leaseNamespace(StewardProperties properties) throws IOException {
    String configured = properties.getLeaderElection().getLeaseNamespace();
    if (configured != null && !configured.isBlank()) {
      return new LeaseNamespace(configured);
    }
    String podNamespace = System.getenv("POD_NAMESPACE");
    if (podNamespace != null && !podNamespace.isBlank()) {
      return new LeaseNamespace(podNamespace);
    }
    if (Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)) {
      return new LeaseNamespace(Files.readString(SERVICE_ACCOUNT_NAMESPACE).strip());
    }
    return new LeaseNamespace("default");
  }

  /** The namespace that holds the leader Lease. */
  public record LeaseNamespace(String name) {}
}
