package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.steward.operator.runtime.client.LenientJson;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnManagedFieldsTest {
  private static final String OWN_FIELDS =
      "{\"f:spec\":{\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"app\\\"}\":{\".\":{},\"f:env\":{}}}}}}}";

  @Test
  void theCacheKeepsOnlyTheOperatorsOwnEntryForTheObjectWithItsFieldsDeflated() {
    ApiClient client = new ApiClient().setReadTimeout(0);
    LenientJson.install(client);
    Gson gson = client.getJSON().getGson();
    V1Deployment deployment = gson.fromJson("""
        {"metadata":{"name":"shop","managedFields":[
          {"manager":"steward","operation":"Update","fieldsType":"FieldsV1","fieldsV1":%s},
          {"manager":"steward","operation":"Update","subresource":"status","fieldsV1":{"f:status":{}}},
          {"manager":"kube-controller-manager","operation":"Update","fieldsV1":{"f:metadata":{}}}]}}
        """.formatted(OWN_FIELDS), V1Deployment.class);

    new OwnManagedFields("steward", gson).keepOnlyOwn(deployment);

    List<V1ManagedFieldsEntry> kept = deployment.getMetadata().getManagedFields();
    assertThat(kept).singleElement().satisfies(entry -> {
      assertThat(entry.getManager()).isEqualTo("steward");
      assertThat(entry.getSubresource()).isNull();
      assertThat(entry.getFieldsV1()).isInstanceOf(DeflatedJson.class);
      assertThat(OwnManagedFields.fieldsV1(entry, gson)).isEqualTo(JsonParser.parseString(OWN_FIELDS));
    });
    // Deflated or a tree, as an API server's response has it, reads the same.
    V1ManagedFieldsEntry decoded = new V1ManagedFieldsEntry().fieldsV1(gson.fromJson(OWN_FIELDS, Object.class));
    assertThat(OwnManagedFields.fieldsV1(decoded, gson)).isEqualTo(JsonParser.parseString(OWN_FIELDS));
    assertThat(gson.toJson(deployment)).doesNotContain("managedFields");
  }
}
