package io.steward.operator.runtime.client;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import okhttp3.CipherSuite;
import okhttp3.ConnectionSpec;
import okhttp3.OkHttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which AEAD cipher Steward's connections to the API server offer first.
 *
 * <p>The JDK encrypts AES-GCM with CPU instructions only from code that C2 compiled. Under C1-only
 * compilation (the image's {@code -XX:TieredStopAtLevel=1}) AES and GHASH run as plain Java, several
 * times slower than the JDK's ChaCha20-Poly1305, and were the largest single part of the operator's
 * work while it converged WebApps. Offered first, ChaCha20-Poly1305 is what a Go API server chooses (it
 * follows a client that prefers ChaCha20). Only the order changes: the same cipher suites are
 * offered, so a server that refuses ChaCha20 still agrees on AES-GCM.
 */
public enum TlsCipherOrder {
  /** ChaCha20-Poly1305 first when this JVM would run AES-GCM without its CPU instructions, else the JDK's order. */
  AUTO,
  /** ChaCha20-Poly1305 suites before all others. */
  CHACHA20_FIRST,
  /** The JDK's own order (AES-GCM first). */
  JDK;

  private static final Logger LOG = LoggerFactory.getLogger(TlsCipherOrder.class);

  /** What AUTO means in this JVM. */
  public TlsCipherOrder resolve() {
    return this != AUTO ? this : aesGcmIsAccelerated(TlsCipherOrder::vmOption) ? JDK : CHACHA20_FIRST;
  }

  /**
   * The client with this order in each of its TLS connection specs; unchanged when the order is the
   * JDK's. OkHttp offers a spec's cipher suites in the spec's order.
   */
  public OkHttpClient applyTo(OkHttpClient client) {
    if (resolve() == JDK) {
      return client;
    }
    LOG.info(this == AUTO
        ? "TLS to the API server offers ChaCha20-Poly1305 first: this JVM runs AES-GCM without the CPU's AES instructions"
        : "TLS to the API server offers ChaCha20-Poly1305 first (steward.tls-cipher-order)");
    List<ConnectionSpec> specs = new ArrayList<>();
    for (ConnectionSpec spec : client.connectionSpecs()) {
      specs.add(chaCha20First(spec, client));
    }
    return client.newBuilder().connectionSpecs(specs).build();
  }

  private static ConnectionSpec chaCha20First(ConnectionSpec spec, OkHttpClient client) {
    if (!spec.isTls()) {
      return spec;
    }
    List<CipherSuite> suites = spec.cipherSuites();
    String[] names = suites == null ? client.sslSocketFactory().getDefaultCipherSuites()
        : suites.stream().map(CipherSuite::javaName).toArray(String[]::new);
    return new ConnectionSpec.Builder(spec).cipherSuites(chaCha20First(names)).build();
  }

  /**
   * Whether AES-GCM runs on the CPU's AES and carry-less multiply instructions: only code C2 compiled
   * uses them, so the JVM must compile with C2. Options this JVM does not have (another JVM) count
   * as accelerated, leaving the JDK's order. Product options only: the JVM does not show its
   * diagnostic ones (the intrinsics' own switches) to management.
   */
  static boolean aesGcmIsAccelerated(Function<String, String> vmOption) {
    try {
      boolean compiles = "true".equals(vmOption.apply("UseCompiler"));
      boolean c2 = !"true".equals(vmOption.apply("TieredCompilation"))
          || Integer.parseInt(vmOption.apply("TieredStopAtLevel")) >= 4;
      return compiles && c2;
    } catch (IllegalArgumentException unknownOption) {
      return true;
    }
  }

  /** The enabled suites with the ChaCha20 ones first, each group in its given order. */
  static String[] chaCha20First(String[] suites) {
    Map<Boolean, List<String>> byChaCha20 = Arrays.stream(suites)
        .collect(Collectors.partitioningBy(suite -> suite.contains("CHACHA20")));
    return Stream.concat(byChaCha20.get(true).stream(), byChaCha20.get(false).stream()).toArray(String[]::new);
  }

  static String vmOption(String name) {
    HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    if (hotSpot == null) {
      throw new IllegalArgumentException("not a HotSpot JVM: no option " + name);
    }
    return hotSpot.getVMOption(name).getValue();
  }
}
