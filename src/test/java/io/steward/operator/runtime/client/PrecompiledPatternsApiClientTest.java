package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiClient;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The answers are the generated client's: fails if a precompiled pattern or the escaping differs. */
class PrecompiledPatternsApiClientTest {
  private final ApiClient generated = new ApiClient();
  private final ApiClient precompiled = new PrecompiledPatternsApiClient();

  @Test
  void recognisesTheSameJsonMediaTypes() {
    List<String> mimes = Arrays.asList(null, "", "application/json", "APPLICATION/JSON", "application/json; charset=utf-8",
        "application/json ;charset=utf-8", "application/json\t", "application/merge-patch+json",
        "application/strategic-merge-patch+json", "application/apply-patch+yaml", "application/json-patch+json",
        "application/vnd.kubernetes.protobuf", "application/yaml", "text/plain", "*/*", "*/* ", "application/*+json",
        "application/jsonx", "xapplication/json", "a/b+json;x", "a b/c+json", "application/json\n", "+json",
        "application/json;", "application/x+JSON");
    for (String mime : mimes) {
      assertThat(precompiled.isJsonMime(mime)).as("isJsonMime(%s)", mime).isEqualTo(generated.isJsonMime(mime));
    }
    String[] accepts = {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};
    assertThat(precompiled.selectHeaderAccept(accepts)).isEqualTo(generated.selectHeaderAccept(accepts));
    String[] patches = {"application/json-patch+json", "application/merge-patch+json"};
    assertThat(precompiled.selectHeaderContentType(patches)).isEqualTo(generated.selectHeaderContentType(patches));
  }

  @Test
  void escapesPathParametersTheSameWay() {
    Random random = new Random(20261205);
    String alphabet = "az09-._~ +%/?#&=:@!$'()*,;[]\"<>\\^`{|}éü日本\u0000\t";
    for (int i = 0; i < 5_000; i++) {
      StringBuilder text = new StringBuilder();
      for (int n = random.nextInt(12); n > 0; n--) {
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String value = text.toString();
      assertThat(precompiled.escapeString(value)).as("escapeString(%s)", value).isEqualTo(generated.escapeString(value));
    }
  }
}
