package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiClient;
import io.steward.operator.runtime.client.TlsCipherOrder;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * The cipher the real API server agrees on with the client Steward builds: ChaCha20-Poly1305 when
 * Steward offers it first, AES-GCM (the JDK's first choice) otherwise.
 */
@LocalClusterTest
class TlsCipherOrderIT {

  @Test
  void theApiServerFollowsTheOrderStewardOffers(LocalCluster cluster) throws Exception {
    assertThat(cipherAgreed(cluster, TlsCipherOrder.CHACHA20_FIRST)).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
    assertThat(cipherAgreed(cluster, TlsCipherOrder.JDK)).startsWith("TLS_AES_").contains("_GCM_");
  }

  private static String cipherAgreed(LocalCluster cluster, TlsCipherOrder order) throws Exception {
    StewardProperties properties = new StewardProperties();
    properties.setKubeconfig(cluster.kubeconfig());
    properties.setTlsCipherOrder(order);
    ApiClient client = new ClientConfiguration().apiClient(properties);
    Request version = new Request.Builder().url(client.getBasePath() + "/version").build();
    try (Response response = client.getHttpClient().newCall(version).execute()) {
      assertThat(response.code()).isEqualTo(200);
      return response.handshake().cipherSuite().javaName();
    }
  }
}
