package io.steward.operator.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.steward.operator.webapp.api.WebAppSpec;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnvLimitsTest {
  private final EnvLimits limits = EnvLimits.fromCrd();

  @Test
  void theLargestEnvHasTheMostEntriesAndExactlyTheCharactersAskedFor() {
    List<WebAppSpec.EnvVar> env = limits.largest(limits.maxCharacters(), "w1");

    assertThat(env).hasSize(limits.maxItems()).allMatch(e -> e.valueFrom() != null);
    assertThat(EnvLimits.counted(env)).isEqualTo(limits.maxCharacters());
    assertThat(EnvLimits.counted(limits.largest(limits.maxCharacters() + 1, "w1"))).isEqualTo(limits.maxCharacters() + 1);
    assertThat(new HashSet<>(env.stream().map(WebAppSpec.EnvVar::name).toList())).hasSize(env.size());
    assertThat(env).allMatch(e -> e.name().length() <= limits.maxName());
  }

  @Test
  void envsOfDifferentTagsShareNoString() {
    var one = limits.largest(limits.maxCharacters(), "w1").get(0);
    var other = limits.largest(limits.maxCharacters(), "w2").get(0);

    assertThat(one.name()).isNotEqualTo(other.name());
    assertThat(one.valueFrom().secretKeyRef().name()).isNotEqualTo(other.valueFrom().secretKeyRef().name());
    assertThat(one.valueFrom().secretKeyRef().key()).isNotEqualTo(other.valueFrom().secretKeyRef().key());
  }

  @Test
  void anEnvTheEntriesCannotHoldIsRefusedByName() {
    assertThatThrownBy(() -> limits.largest(2, "w1")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot hold exactly 2 characters");
  }

  @Test
  void generatedSpecsStayWithinTheEnvBounds() {
    WebAppSpecGenerator generator = new WebAppSpecGenerator(14);
    for (int i = 0; i < 2_000; i++) {
      List<WebAppSpec.EnvVar> env = generator.spec().envOrEmpty();
      assertThat(env.size()).isLessThanOrEqualTo(limits.maxItems());
      assertThat(EnvLimits.counted(env)).as("spec %d", i).isLessThanOrEqualTo(limits.maxCharacters());
    }
  }
}
