package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.steward.testing.SourceFileJvm;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import okhttp3.ConnectionSpec;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

class TlsCipherOrderTest {
  private static final Map<String, String> C1_ONLY = Map.of("UseCompiler", "true", "TieredCompilation", "true",
      "TieredStopAtLevel", "1");

  @Test
  void chaCha20SuitesMoveFirstAndNothingIsAddedOrDropped() {
    String[] jdk = {"TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"};
    assertThat(TlsCipherOrder.chaCha20First(jdk)).containsExactly("TLS_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
    String[] fipsLike = {"TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256"};
    assertThat(TlsCipherOrder.chaCha20First(fipsLike)).containsExactly(fipsLike);
  }

  @Test
  void aesGcmCountsAsAcceleratedOnlyWhenTheJvmCompilesWithC2() {
    assertThat(TlsCipherOrder.aesGcmIsAccelerated(C1_ONLY::get)).isFalse();
    assertThat(TlsCipherOrder.aesGcmIsAccelerated(with("TieredStopAtLevel", "4")::get)).isTrue();
    assertThat(TlsCipherOrder.aesGcmIsAccelerated(with("TieredCompilation", "false")::get)).as("C2 alone").isTrue();
    assertThat(TlsCipherOrder.aesGcmIsAccelerated(with("TieredStopAtLevel", "4", "UseCompiler", "false")::get))
        .as("-Xint").isFalse();
    assertThat(TlsCipherOrder.aesGcmIsAccelerated(name -> {
      throw new IllegalArgumentException("no option " + name);
    })).as("another JVM: the JDK's order").isTrue();
  }

  @Test
  void theOptionsItReadsAreOnesThisJvmShows() {
    for (String option : C1_ONLY.keySet()) {
      assertThat(TlsCipherOrder.vmOption(option)).as(option).isNotBlank();
    }
  }

  @Test
  void autoOffersChaCha20FirstInAJvmThatCompilesWithC1Only() throws Exception {
    assertThat(autoResolvedInAJvmWith("-XX:TieredStopAtLevel=1")).isEqualTo("CHACHA20_FIRST");
    assertThat(autoResolvedInAJvmWith("-XX:TieredStopAtLevel=4")).isEqualTo("JDK");
  }

  @Test
  void onlyAutoDependsOnTheJvm() {
    assertThat(TlsCipherOrder.JDK.resolve()).isEqualTo(TlsCipherOrder.JDK);
    assertThat(TlsCipherOrder.CHACHA20_FIRST.resolve()).isEqualTo(TlsCipherOrder.CHACHA20_FIRST);
    assertThat(TlsCipherOrder.AUTO.resolve()).isIn(TlsCipherOrder.JDK, TlsCipherOrder.CHACHA20_FIRST);
  }

  @Test
  void theClientsTlsSpecsOfferChaCha20FirstOrAreLeftAlone() {
    OkHttpClient client = new OkHttpClient();
    assertThat(TlsCipherOrder.JDK.applyTo(client)).isSameAs(client);

    OkHttpClient reordered = TlsCipherOrder.CHACHA20_FIRST.applyTo(client);
    assertThat(reordered.connectionSpecs()).hasSameSizeAs(client.connectionSpecs());
    for (int i = 0; i < client.connectionSpecs().size(); i++) {
      ConnectionSpec before = client.connectionSpecs().get(i);
      ConnectionSpec after = reordered.connectionSpecs().get(i);
      assertThat(after.isTls()).isEqualTo(before.isTls());
      assertThat(after.tlsVersions()).isEqualTo(before.tlsVersions());
      if (before.isTls()) {
        assertThat(after.cipherSuites()).containsExactlyInAnyOrderElementsOf(before.cipherSuites());
        assertThat(after.cipherSuites().get(0).javaName()).contains("CHACHA20");
        assertThat(before.cipherSuites().get(0).javaName()).as("OkHttp's own order puts AES-GCM first")
            .doesNotContain("CHACHA20");
      }
    }
  }

  private static Map<String, String> with(String... overrides) {
    Map<String, String> options = new HashMap<>(C1_ONLY);
    for (int i = 0; i < overrides.length; i += 2) {
      options.put(overrides[i], overrides[i + 1]);
    }
    return options;
  }

  /** What {@code auto} resolves to in a JVM started with {@code option}. */
  private static String autoResolvedInAJvmWith(String option) throws Exception {
    SourceFileJvm.Result jvm = SourceFileJvm.run(Path.of("target", "tls-cipher-order", "PrintAuto.java"), """
        class PrintAuto {
          public static void main(String[] args) {
            System.out.print(io.steward.operator.runtime.client.TlsCipherOrder.AUTO.resolve());
          }
        }
        """, List.of(option));
    assertThat(jvm.exitCode()).as(jvm.output()).isZero();
    return jvm.output().strip();
  }
}
