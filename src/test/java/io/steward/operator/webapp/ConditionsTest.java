package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Condition;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {
  private static final OffsetDateTime T1 = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
  private static final OffsetDateTime T2 = T1.plusMinutes(5);

  @Test
  void aNewConditionGetsNowAsTransitionTime() {
    List<V1Condition> set = Conditions.set(List.of(), Conditions.condition("Ready", true, "Available", "ok", 1), T1);
    assertThat(set).singleElement().satisfies(c -> {
      assertThat(c.getLastTransitionTime()).isEqualTo(T1);
      assertThat(c.getObservedGeneration()).isEqualTo(1L);
    });
  }

  @Test
  void sameStatusKeepsTheTransitionTimeButTakesNewReasonMessageAndGeneration() {
    List<V1Condition> first = Conditions.set(List.of(), Conditions.condition("Ready", false, "A", "1 of 2", 1), T1);
    List<V1Condition> second = Conditions.set(first, Conditions.condition("Ready", false, "B", "0 of 2", 2), T2);
    assertThat(second).singleElement().satisfies(c -> {
      assertThat(c.getLastTransitionTime()).isEqualTo(T1);
      assertThat(c.getReason()).isEqualTo("B");
      assertThat(c.getMessage()).isEqualTo("0 of 2");
      assertThat(c.getObservedGeneration()).isEqualTo(2L);
    });
  }

  @Test
  void aFlipMovesTheTransitionTime() {
    List<V1Condition> first = Conditions.set(List.of(), Conditions.condition("Ready", false, "A", "", 1), T1);
    List<V1Condition> second = Conditions.set(first, Conditions.condition("Ready", true, "A", "", 1), T2);
    assertThat(second.get(0).getLastTransitionTime()).isEqualTo(T2);
  }

  @Test
  void reSettingAnUnchangedConditionGivesAnEqualList() {
    List<V1Condition> first = Conditions.set(List.of(), Conditions.condition("Ready", true, "A", "m", 3), T1);
    assertThat(Conditions.set(first, Conditions.condition("Ready", true, "A", "m", 3), T2)).isEqualTo(first);
  }

  @Test
  void otherConditionsAreKeptInOrder() {
    List<V1Condition> list = Conditions.set(List.of(), Conditions.condition("Degraded", false, "X", "", 1), T1);
    list = Conditions.set(list, Conditions.condition("Ready", true, "Y", "", 1), T1);
    list = Conditions.set(list, Conditions.condition("Degraded", true, "Z", "", 1), T2);
    assertThat(list).extracting(V1Condition::getType).containsExactly("Degraded", "Ready");
    assertThat(Conditions.isTrue(list, "Degraded")).isTrue();
  }
}
