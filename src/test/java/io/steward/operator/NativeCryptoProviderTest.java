package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import java.security.Security;
import java.util.Map;
import javax.crypto.Cipher;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

class NativeCryptoProviderTest {

  @AfterEach
  void removeIt() {
    Security.removeProvider(AmazonCorrettoCryptoProvider.PROVIDER_NAME);
  }

  @Test
  void offByDefaultLeavesTheJdksProviders() throws Exception {
    postProcess(Map.of());
    assertThat(Security.getProvider(AmazonCorrettoCryptoProvider.PROVIDER_NAME)).isNull();
    assertThat(Cipher.getInstance("AES/GCM/NoPadding").getProvider().getName()).isEqualTo("SunJCE");
  }

  @Test
  void whenOnTlsCiphersComeFromTheNativeProvider() throws Exception {
    postProcess(Map.of(NativeCryptoProvider.PROPERTY, "true"));
    assertThat(Security.getProviders()[0].getName()).isEqualTo(AmazonCorrettoCryptoProvider.PROVIDER_NAME);
    assertThat(Cipher.getInstance("AES/GCM/NoPadding").getProvider().getName())
        .isEqualTo(AmazonCorrettoCryptoProvider.PROVIDER_NAME);
    // JSSE still builds a TLS context on top of it.
    SSLContext tls = SSLContext.getInstance("TLSv1.3");
    tls.init(null, null, null);
    assertThat(tls.createSSLEngine().getSupportedCipherSuites()).contains("TLS_AES_128_GCM_SHA256");
  }

  private static void postProcess(Map<String, Object> properties) {
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
    new NativeCryptoProvider(new DeferredLogs()).postProcessEnvironment(environment, new SpringApplication());
  }
}
