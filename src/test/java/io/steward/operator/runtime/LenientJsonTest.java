package io.steward.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.Gson;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Deployment;
import java.time.OffsetDateTime;
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
}
