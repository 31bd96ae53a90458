package io.steward.operator;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import java.security.Security;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Puts Amazon Corretto Crypto Provider first among the JCA providers, before any client opens a TLS
 * connection, when {@code steward.crypto.native-provider} is true. The JDK's AES-GCM is fast only once
 * C2 has compiled it to its intrinsics; the chart runs C1 alone, so every byte to and from the API
 * server went through plain compiled Java. The native provider does AES-GCM (and the handshakes'
 * hashing and key agreement) in native code whatever the JIT does. Where its native library cannot
 * load (not Linux x86-64), the JDK's providers stay, and that is logged.
 */
public class NativeCryptoProvider implements EnvironmentPostProcessor {
  static final String PROPERTY = "steward.crypto.native-provider";

  private final Log log;

  public NativeCryptoProvider(DeferredLogFactory logs) {
    this.log = logs.getLog(NativeCryptoProvider.class);
  }

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (!environment.getProperty(PROPERTY, Boolean.class, false)) {
      return;
    }
    if (Security.getProvider(AmazonCorrettoCryptoProvider.PROVIDER_NAME) != null) {
      return; // already first: a second application context in the same JVM
    }
    Throwable unavailable = AmazonCorrettoCryptoProvider.INSTANCE.getLoadingError();
    if (unavailable != null) {
      log.info("Native crypto provider unavailable here (" + unavailable.getMessage() + "); using the JDK's");
      return;
    }
    AmazonCorrettoCryptoProvider.install();
    AmazonCorrettoCryptoProvider.INSTANCE.assertHealthy();
    log.info("Native crypto provider " + AmazonCorrettoCryptoProvider.INSTANCE.getVersionStr() + " installed first");
  }
}
