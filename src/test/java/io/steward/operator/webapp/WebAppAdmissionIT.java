package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.steward.operator.support.Crds;
import io.steward.operator.support.EnvLimits;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CRD's schema and CEL rules, judged by the real API server: every manifest in
 * src/test/resources/invalid-webapps.json is refused with a message that names the field.
 */
@LocalClusterTest
class WebAppAdmissionIT {
  private static DynamicKubernetesApi webApps;
  private static WebApps typed;
  private static String namespace;

  @BeforeAll
  static void installCrd(LocalCluster cluster, TestNamespace ns) {
    Crds.installWebAppCrd(cluster.adminClient());
    webApps = new DynamicKubernetesApi(WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL, cluster.adminClient());
    namespace = ns.name();
    typed = new WebApps(cluster.adminClient(), namespace);
  }

  static Stream<Arguments> invalidManifests() throws IOException {
    try (var reader = new InputStreamReader(
        WebAppAdmissionIT.class.getResourceAsStream("/invalid-webapps.json"), StandardCharsets.UTF_8)) {
      List<Arguments> cases = new ArrayList<>();
      for (JsonElement element : JsonParser.parseReader(reader).getAsJsonArray()) {
        JsonObject c = element.getAsJsonObject();
        List<String> expected = new ArrayList<>();
        c.getAsJsonArray("expect").forEach(e -> expected.add(e.getAsString()));
        cases.add(Arguments.of(c.get("case").getAsString(), c.getAsJsonObject("manifest"), expected));
      }
      return cases.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidManifests")
  void isRefusedWithAMessageNamingTheField(String description, JsonObject manifest, List<String> expected) {
    JsonObject body = manifest.deepCopy();
    body.getAsJsonObject("metadata").addProperty("namespace", namespace);

    KubernetesApiResponse<DynamicKubernetesObject> response = webApps.create(new DynamicKubernetesObject(body));

    assertThat(response.isSuccess()).as("%s was accepted", description).isFalse();
    assertThat(response.getHttpStatusCode()).as(description).isEqualTo(422);
    assertThat(response.getStatus().getMessage()).as(description).contains(expected);
  }

  @Test
  void theCorpusIsLargeEnoughToMeanSomething() throws IOException {
    assertThat(invalidManifests().count()).isGreaterThanOrEqualTo(30);
  }

  @Test
  void aValidManifestGetsItsDefaults() {
    JsonObject body = JsonParser.parseString("{\"apiVersion\":\"steward.io/v1alpha1\",\"kind\":\"WebApp\","
        + "\"metadata\":{\"name\":\"fine\",\"namespace\":\"" + namespace + "\"},\"spec\":{\"image\":\"nginx\"}}")
        .getAsJsonObject();

    KubernetesApiResponse<DynamicKubernetesObject> response = webApps.create(new DynamicKubernetesObject(body));

    assertThat(response.isSuccess()).as(String.valueOf(response.getStatus())).isTrue();
    JsonObject spec = response.getObject().getRaw().getAsJsonObject("spec");
    assertThat(spec.get("replicas").getAsInt()).isEqualTo(1);
    assertThat(spec.get("serviceType").getAsString()).isEqualTo("ClusterIP");
    assertThat(spec.get("paused").getAsBoolean()).isFalse();
  }

  /**
   * The env size rule counts every character an entry carries (name, value, and a reference's
   * Secret or ConfigMap name and key): the largest env of references and the largest of one value
   * pass, and each with one character more is refused with a message that names the field and the
   * bound. A rule that counted less, or more, fails here.
   */
  @Test
  void theEnvSizeRuleCountsNamesValuesAndReferencesExactly() {
    EnvLimits limits = EnvLimits.fromCrd();
    int max = limits.maxCharacters();
    assertAdmitted("env-refs-at", limits.largest(max, "at"));
    assertRefusedForSize("env-refs-over", limits.largest(max + 1, "over"), max);
    assertAdmitted("env-value-at", List.of(new WebAppSpec.EnvVar("V", "x".repeat(max - 1))));
    assertRefusedForSize("env-value-over", List.of(new WebAppSpec.EnvVar("VV", "x".repeat(max - 1))), max);
  }

  private static void assertAdmitted(String name, List<WebAppSpec.EnvVar> env) {
    KubernetesApiResponse<WebApp> response = typed.tryCreate(name, WebApps.spec("nginx", 1, null).withEnv(env));
    assertThat(response.isSuccess()).as("%s (%d characters): %s", name, EnvLimits.counted(env), response.getStatus())
        .isTrue();
  }

  private static void assertRefusedForSize(String name, List<WebAppSpec.EnvVar> env, int max) {
    KubernetesApiResponse<WebApp> response = typed.tryCreate(name, WebApps.spec("nginx", 1, null).withEnv(env));
    assertThat(response.getHttpStatusCode()).as("%s (%d characters)", name, EnvLimits.counted(env)).isEqualTo(422);
    assertThat(response.getStatus().getMessage()).contains("spec.env: ").contains("must not exceed " + max + " characters");
  }
}
