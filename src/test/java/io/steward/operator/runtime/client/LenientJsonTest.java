package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.Gson;
import com.google.gson.TypeAdapter;
import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.steward.testing.SourceFileJvm;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LenientJsonTest {
  /** A Deployment as a Kubernetes 1.37 API server sends it, with a Pod-spec field client-java 25 lacks. */
  private static final String NEWER = """
      {"apiVersion":"apps/v1","kind":"Deployment",
       "metadata":{"name":"shop","creationTimestamp":"2026-12-03T10:00:00Z","futureMetadata":1,
         "managedFields":[{"manager":"steward","operation":"Update","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},
       "spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},
         "template":{"spec":{"schedulingGroup":{"podGroupName":"g"},
           "containers":[{"name":"app","image":"nginx","resources":{"limits":{"memory":"128Mi"}}}]}}}}
      """;

  /** A watch bookmark as the API server sends one for Deployments: an empty object, spec.selector null. */
  private static final String DEPLOYMENT_BOOKMARK = """
      {"type":"BOOKMARK","object":{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"resourceVersion":"123",
       "creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}},
       "spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},
       "strategy":{}},"status":{}}}
      """;

  /** Deployments' informer asks for bookmarks (and a streaming list must): their object must decode. */
  @Test
  void aDeploymentBookmarkDecodes() {
    Type event = TypeToken.getParameterized(io.kubernetes.client.util.Watch.Response.class, V1Deployment.class)
        .getType();
    Gson strict = new JSON().getGson();
    if (!LenientJson.isLenient(strict)) {
      assertThatThrownBy(() -> strict.fromJson(DEPLOYMENT_BOOKMARK, event)).hasMessageContaining("Not a JSON Object");
    }
    io.kubernetes.client.util.Watch.Response<V1Deployment> bookmark =
        LenientJson.create(strict).fromJson(DEPLOYMENT_BOOKMARK, event);
    assertThat(bookmark.type).isEqualTo("BOOKMARK");
    assertThat(bookmark.object.getMetadata().getResourceVersion()).isEqualTo("123");
  }

  @Test
  void clientJavasOwnDecodingRejectsAFieldItsModelsLack() {
    Gson strict = new JSON().getGson();
    if (LenientJson.isLenient(strict)) {
      return; // another test in this JVM installed it already; the strict Gson is gone
    }
    assertThatThrownBy(() -> strict.fromJson(NEWER, V1Deployment.class))
        .hasMessageContaining("is not defined in the `V1ObjectMeta` properties");
    assertThatThrownBy(() -> strict.fromJson(NEWER.replace(",\"futureMetadata\":1", ""), V1Deployment.class))
        .hasMessageContaining("The field `schedulingGroup` in the JSON string is not defined in the `V1PodSpec` properties");
  }

  @Test
  void theLenientGsonDecodesTheKnownFieldsAndSkipsTheRest() {
    Gson lenient = LenientJson.create(new JSON().getGson());

    V1Deployment deployment = lenient.fromJson(NEWER, V1Deployment.class);

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(deployment.getMetadata().getCreationTimestamp()).isEqualTo(OffsetDateTime.parse("2026-12-03T10:00:00Z"));
    assertThat(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getLimits().get("memory")
        .toSuffixedString()).isEqualTo("128Mi");
    assertThat(lenient.toJson(deployment)).contains("\"creationTimestamp\":\"2026-12-03T10:00:00.000000Z\"")
        .contains("\"memory\":\"128Mi\"").doesNotContain("schedulingGroup");
    assertThat(LenientJson.isLenient(lenient)).isTrue();
    // managedFields are read (Steward's entry says which fields it set) but never sent back.
    assertThat(deployment.getMetadata().getManagedFields()).singleElement()
        .satisfies(entry -> assertThat(entry.getManager()).isEqualTo("steward"));
    assertThat(lenient.toJson(deployment)).doesNotContain("managedFields");
  }

  @Test
  void decodedObjectsShareTheShortStringsTheyRepeat() {
    Gson lenient = LenientJson.create(new JSON().getGson());

    V1Deployment first = lenient.fromJson(NEWER, V1Deployment.class);
    V1Deployment second = lenient.fromJson(NEWER.replace("\"shop\"", "\"cart\""), V1Deployment.class);

    assertThat(second.getMetadata().getName()).isEqualTo("cart");
    assertThat(second.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isSameAs(first.getSpec().getTemplate().getSpec().getContainers().get(0).getImage());
    assertThat(second.getSpec().getSelector().getMatchLabels().keySet().iterator().next())
        .isSameAs(first.getSpec().getSelector().getMatchLabels().keySet().iterator().next());
    assertThat(second.getMetadata().getManagedFields().get(0).getManager())
        .isSameAs(first.getMetadata().getManagedFields().get(0).getManager());
  }

  @Test
  void theBasicAdaptersAreClientJavasOwnInstancesReadWithoutAskingItsGson() {
    Gson strict = new JSON().getGson();
    Map<Type, TypeAdapter<?>> basic = LenientJson.basicAdapters(strict);

    assertThat(basic).containsOnlyKeys(java.util.Date.class, java.sql.Date.class, OffsetDateTime.class,
        LocalDate.class, byte[].class);
    // Read from client-java's fields (a renamed field would silently take the slow way)...
    for (String field : List.of("dateTypeAdapter", "sqlDateTypeAdapter", "offsetDateTimeTypeAdapter",
        "localDateTypeAdapter", "byteArrayAdapter")) {
      assertThat(LenientJson.clientJavasField(field)).as(field).isPresent();
    }
    // ...and the same instances client-java's strict Gson decodes with, while it is still installed.
    if (!LenientJson.isLenient(strict)) {
      basic.forEach((type, adapter) -> assertThat(strict.getAdapter(TypeToken.get(type))).as(type.getTypeName())
          .isSameAs(adapter));
    }
    assertThat(LenientJson.create(strict).getAdapter(LocalDate.class)).isSameAs(basic.get(LocalDate.class));
  }

  /**
   * Fails if installing loads client-java's models wholesale, as asking client-java's strict Gson for
   * any adapter does (each model's factory loads its model to compare it with the type asked for):
   * hundreds of classes Steward never decodes, held in every process's memory.
   */
  @Test
  void installingLoadsNoModelItDoesNotDecode() throws Exception {
    SourceFileJvm.Result jvm = SourceFileJvm.run(Path.of("target", "lenient-json", "InstallInAFreshJvm.java"), """
        class InstallInAFreshJvm {
          public static void main(String[] args) {
            io.kubernetes.client.openapi.ApiClient client = new io.kubernetes.client.openapi.ApiClient();
            io.steward.operator.runtime.client.LenientJson.install(client);
            // Decodes a field client-java's models lack, as only the lenient Gson does.
            System.out.println("installed: " + client.getJSON().getGson()
                .fromJson("{\\"kind\\":\\"Status\\",\\"fieldOfANewerServer\\":1}", io.kubernetes.client.openapi.models.V1Status.class)
                .getKind().equals("Status"));
          }
        }
        """, List.of("-verbose:class"));

    assertThat(jvm.exitCode()).as(jvm.output()).isZero();
    assertThat(jvm.output()).contains("installed: true");
    List<String> models = jvm.output().lines().filter(line -> line.contains("[class,load] io.kubernetes.client.openapi.models."))
        .filter(line -> !line.contains("$CustomTypeAdapterFactory")).toList();
    assertThat(models.size()).as("model classes loaded, first: %s", models.stream().limit(5).toList()).isLessThan(10);
  }
}
