package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus.Phase;
import io.steward.testing.cluster.AuditLog;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nothing fails silently, even past admission: with the CRD's quantity bounds taken out (as a CRD of
 * an older Steward had them), WebApps whose quantities client-java cannot write are reported
 * Stalled/InvalidSpec with one Warning Event, cost no further request, and recover with a new spec.
 * On the old reconciler they got no status at all and a retry with back-off, forever.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class UnbuildableSpecIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static InProcessOperator operator;
  private static DynamicKubernetesApi rawWebApps;
  private static WebApps webApps;
  private static CoreV1Api core;
  private static ApiClient admin;
  private static String ns;

  @BeforeAll
  static void start(LocalCluster cluster, TestNamespace namespace) {
    Crds.install(cluster.adminClient(), withoutQuantityBounds(Crds.load()));
    ns = namespace.name();
    admin = cluster.adminClient();
    operator = InProcessOperator.start(cluster, ns, "unbuildable-" + ns, Map.of("steward.resync-period", "2s"));
    rawWebApps = new DynamicKubernetesApi(WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL, cluster.adminClient());
    webApps = new WebApps(cluster.adminClient(), ns);
    core = new CoreV1Api(cluster.adminClient());
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (admin != null) {
      Crds.installWebAppCrd(admin); // the file's CRD again, for the classes after this one
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"0.000000001m", "9223372036854775807Ei", "1.0000000001", "1Ei"})
  void aQuantityStewardCannotWriteIsStalledOnceAndANewSpecClearsIt(String cpu, LocalCluster cluster)
      throws Exception {
    String name = "q-" + Integer.toHexString(cpu.hashCode());
    JsonObject body = JsonParser.parseString("""
        {"apiVersion":"steward.io/v1alpha1","kind":"WebApp","metadata":{"name":"%s","namespace":"%s"},
         "spec":{"image":"nginx:1.27","replicas":1,"resources":{"requests":{"cpu":"%s"}}}}
        """.formatted(name, ns, cpu)).getAsJsonObject();
    KubernetesApiResponse<DynamicKubernetesObject> created = rawWebApps.create(new DynamicKubernetesObject(body));
    assertThat(created.isSuccess()).as("accepted by the relaxed CRD: %s", created.getStatus()).isTrue();

    WebApp stalled = await().atMost(CONVERGE).ignoreExceptions().until(() -> webApps.get(name),
        w -> Conditions.isTrue(w.getStatus().conditionsOrEmpty(), "Stalled"));
    assertThat(stalled.getStatus().phase()).isEqualTo(Phase.Degraded);
    assertThat(stalled.getStatus().observedGeneration()).isEqualTo(stalled.getMetadata().getGeneration());
    assertThat(Conditions.find(stalled.getStatus().conditions(), "Stalled").getReason()).isEqualTo("InvalidSpec");
    assertThat(Conditions.find(stalled.getStatus().conditions(), "Stalled").getMessage())
        .contains("cannot build the Deployment");

    // Terminal: once its Event is out, several resyncs pass without one more write by Steward for it.
    await().atMost(CONVERGE).until(() -> !warnings(name).isEmpty());
    Instant reportedAt = Instant.now();
    await().pollDelay(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(20)).until(() -> true);
    List<AuditLog.Entry> writes = cluster.auditLog().writesBy(operator.userAgent(), reportedAt).stream()
        .filter(e -> Set.of("webapps", "deployments", "services", "events").contains(e.resource()))
        .filter(e -> ns.equals(e.namespace()) && e.name() != null && e.name().startsWith(name))
        .toList();
    assertThat(writes).as("writes by Steward after the problem was reported").isEmpty();
    assertThat(warnings(name)).singleElement().satisfies(e -> {
      assertThat(e.getReason()).isEqualTo("InvalidSpec");
      assertThat(e.getCount()).isEqualTo(1);
    });

    KubernetesApiResponse<DynamicKubernetesObject> current = rawWebApps.get(ns, name);
    JsonObject fixed = current.getObject().getRaw();
    fixed.getAsJsonObject("spec").getAsJsonObject("resources").getAsJsonObject("requests").addProperty("cpu", "100m");
    assertThat(rawWebApps.update(new DynamicKubernetesObject(fixed)).isSuccess()).isTrue();
    WebApp ready = await().atMost(CONVERGE).ignoreExceptions().until(() -> webApps.get(name),
        w -> w.getStatus().phase() == Phase.Ready);
    assertThat(Conditions.isTrue(ready.getStatus().conditions(), "Stalled")).isFalse();
  }

  private static List<CoreV1Event> warnings(String name) throws Exception {
    return core.listNamespacedEvent(ns).fieldSelector("involvedObject.name=" + name).execute().getItems().stream()
        .filter(e -> "Warning".equals(e.getType())).toList();
  }

  /** The CRD with its quantity schema as before the bounds: the Kubernetes quantity pattern only. */
  private static JsonObject withoutQuantityBounds(JsonObject crd) {
    JsonObject resources = crd.getAsJsonObject("spec").getAsJsonArray("versions").get(0).getAsJsonObject()
        .getAsJsonObject("schema").getAsJsonObject("openAPIV3Schema").getAsJsonObject("properties")
        .getAsJsonObject("spec").getAsJsonObject("properties").getAsJsonObject("resources")
        .getAsJsonObject("properties");
    for (String bound : List.of("requests", "limits")) {
      JsonObject quantity = resources.getAsJsonObject(bound).getAsJsonObject("additionalProperties");
      quantity.remove("maxLength");
      quantity.remove("x-kubernetes-validations");
      quantity.addProperty("pattern", "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]"
          + "|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$");
    }
    return crd;
  }
}
