package io.steward.operator.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WebAppFuzzTest {
  private final WebAppFuzz fuzz = new WebAppFuzz(Crds.load(), 14);

  @Test
  void everySpecFieldOfTheCrdIsFuzzed() {
    Set<String> fields = new HashSet<>();
    fuzz.mutations().forEach(m -> fields.add(m.field().replaceAll("^(spec\\.[a-zA-Z]+).*", "$1")));
    assertThat(fields).contains("spec.image", "spec.replicas", "spec.port", "spec.serviceType", "spec.env",
        "spec.resources", "spec.readinessPath", "spec.paused");
  }

  @Test
  void documentsAreWebAppsInJsonAndTheSameForTheSameSeed() {
    WebAppFuzz again = new WebAppFuzz(Crds.load(), 14);
    for (int i = 0; i < fuzz.mutations().size(); i++) {
      String document = fuzz.document(i, "fuzz-" + i);
      assertThat(JsonParser.parseString(document).getAsJsonObject().get("kind").getAsString()).isEqualTo("WebApp");
      assertThat(again.document(i, "fuzz-" + i)).isEqualTo(document);
    }
  }

  @Test
  void theHostileQuantitiesAreAmongTheValuesSent() {
    StringBuilder all = new StringBuilder();
    for (int i = 0; i < fuzz.mutations().size(); i++) {
      all.append(fuzz.document(i, "f"));
    }
    assertThat(all).contains("0.000000001m", "9223372036854775807Ei", "9".repeat(1_000), "1".repeat(100_000));
  }
}
