package io.steward.operator;

import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.credentials.RefreshAuthentication;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.steward.operator.runtime.ApiRequestMetrics;
import io.steward.operator.runtime.BucketTerms;
import io.steward.operator.runtime.ConnectionWarmUp;
import io.steward.operator.runtime.LeaseTerm;
import io.steward.operator.runtime.OperatorClients;
import io.steward.operator.runtime.OperatorIdentity;
import io.steward.operator.runtime.PrecompiledPatternsApiClient;
import io.steward.operator.runtime.RereadTokenWhenRefused;
import io.steward.operator.runtime.StewardProperties;
import io.steward.operator.runtime.Tracing;
import io.steward.operator.runtime.WriteFence;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The connection to the API server, found where client-java looks ({@code steward.kubeconfig}, then
 * KUBECONFIG, then ~/.kube/config, then the pod's service account), but built with credential
 * refresh: a client built once from a kubeconfig reads its token once, so a token file that is
 * rotated, or an exec plugin's cloud token that expires, would lock the operator out for good. Every
 * request passes the {@link WriteFence}, which needs this replica's {@link LeaseTerm}, and is timed
 * ({@link ApiRequestMetrics}). The {@link SharedInformerFactory} is bound to these clients, not to
 * client-java's static default client.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StewardProperties.class)
public class ClientConfiguration {
  /** How often a refused token makes Steward read its credentials again, ahead of the refresh period. */
  static final Duration RE_READ_AT_MOST_EVERY = Duration.ofSeconds(2);
  static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

  @Bean
  ApiClient apiClient(StewardProperties properties) throws IOException {
    ApiClient client = connect(properties.getKubeconfig(), System.getenv("KUBECONFIG"), homeDirectory(),
        properties.getCredentialRefreshPeriod(), SERVICE_ACCOUNT_TOKEN);
    return client.setHttpClient(properties.getTlsCipherOrder().applyTo(client.getHttpClient()));
  }

  static ApiClient connect(Path kubeconfig, String kubeconfigVariable, Path home, Duration refresh,
      Path serviceAccountToken) throws IOException {
    if (kubeconfig == null && kubeconfigVariable != null && !kubeconfigVariable.isBlank()) {
      kubeconfig = Path.of(kubeconfigVariable);
      if (!Files.isRegularFile(kubeconfig)) {
        throw new IllegalStateException("KUBECONFIG names " + kubeconfig + ", which is not a file");
      }
    }
    if (kubeconfig == null && home != null && Files.isRegularFile(home.resolve(".kube").resolve("config"))) {
      kubeconfig = home.resolve(".kube").resolve("config");
    }
    if (kubeconfig != null) {
      try (Reader reader = Files.newBufferedReader(kubeconfig)) {
        KubeConfig config = KubeConfig.loadKubeConfig(reader);
        config.setFile(kubeconfig.toFile());
        ClientBuilder builder = ClientBuilder.kubeconfig(config, refresh)
            .setApiClient(new PrecompiledPatternsApiClient());
        if (!bearerTokenOnly(config)) {
          return builder.build();
        }
        // A token file written by hand ends in a newline, which client-java would send as is (and
        // OkHttp refuses); kubectl trims it.
        RefreshAuthentication token = new RefreshAuthentication(() -> trimmedToken(config), refresh);
        ApiClient client = builder.setAuthentication(token).build();
        return client.setHttpClient(client.getHttpClient().newBuilder()
            .addInterceptor(new RereadTokenWhenRefused(token, RE_READ_AT_MOST_EVERY)).build());
      }
    }
    if (Files.isRegularFile(serviceAccountToken)) {
      // Reads the pod's rotated token every minute.
      return ClientBuilder.cluster().setApiClient(new PrecompiledPatternsApiClient()).build();
    }
    throw new IllegalStateException("No Kubernetes API server configured: set KUBECONFIG or "
        + "steward.kubeconfig to a kubeconfig file, create ~/.kube/config, or run Steward in a pod.");
  }

  private static boolean bearerTokenOnly(KubeConfig config) {
    return config.getClientCertificateData() == null && config.getClientCertificateFile() == null
        && config.getUsername() == null && trimmedToken(config) != null;
  }

  private static String trimmedToken(KubeConfig config) {
    Map<String, String> credentials = config.getCredentials();
    String token = credentials == null ? null : credentials.get(KubeConfig.CRED_TOKEN_KEY);
    return token == null ? null : token.trim();
  }

  private static Path homeDirectory() {
    String home = System.getenv("HOME");
    return home == null || home.isBlank() ? Path.of(System.getProperty("user.home")) : Path.of(home);
  }

  @Bean
  OperatorIdentity operatorIdentity(StewardProperties properties) {
    return OperatorIdentity.resolve(properties.getLeaderElection().getIdentity());
  }

  @Bean
  OperatorClients operatorClients(ApiClient apiClient, OperatorIdentity identity, WriteFence fence,
      MeterRegistry registry, Tracing tracing) {
    OperatorClients clients = new OperatorClients(apiClient, identity, fence, ApiRequestMetrics.listener(registry),
        tracing);
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
