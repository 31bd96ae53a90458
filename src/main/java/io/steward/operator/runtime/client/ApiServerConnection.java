package io.steward.operator.runtime.client;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.credentials.RefreshAuthentication;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Finds the API server where client-java looks ({@code steward.kubeconfig}, then KUBECONFIG, then
 * ~/.kube/config, then the pod's service account), but connects with credential refresh: a client
 * built once from a kubeconfig reads its token once, so a token file that is rotated, or an exec
 * plugin's cloud token that expires, would lock the operator out for good.
 */
public final class ApiServerConnection {
  /** How often a refused token makes Steward read its credentials again, ahead of the refresh period. */
  static final Duration RE_READ_AT_MOST_EVERY = Duration.ofSeconds(2);
  static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

  private ApiServerConnection() {}

  /**
   * A client for the configured kubeconfig ({@code kubeconfig}, null for the default chain), its
   * credentials read again every {@code refresh}.
   */
  public static ApiClient connect(Path kubeconfig, Duration refresh) throws IOException {
    return connect(kubeconfig, System.getenv("KUBECONFIG"), homeDirectory(), refresh, SERVICE_ACCOUNT_TOKEN);
  }

  /** The chain itself, with the environment as arguments. */
  public static ApiClient connect(Path kubeconfig, String kubeconfigVariable, Path home, Duration refresh,
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
        ClientBuilder builder = ClientBuilder.kubeconfig(config, refresh);
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
      return ClientBuilder.cluster().build();
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

  static Path homeDirectory() {
    String home = System.getenv("HOME");
    return home == null || home.isBlank() ? Path.of(System.getProperty("user.home")) : Path.of(home);
  }
}
