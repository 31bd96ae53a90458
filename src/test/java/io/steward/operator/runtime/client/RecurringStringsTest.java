package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecurringStringsTest {
  private final RecurringStrings strings = new RecurringStrings();

  @Test
  void anEqualShortStringIsTheInstanceSeenBefore() {
    String first = strings.canonical(new String("app.kubernetes.io/name"));
    String again = new String("app.kubernetes.io/name");

    assertThat(strings.canonical(again)).isSameAs(first).isNotSameAs(again);
  }

  @Test
  void aLongStringIsNeitherSharedNorKept() {
    String longer = "x".repeat(RecurringStrings.MAX_LENGTH + 1);
    strings.canonical(longer);
    String again = new String(longer);

    assertThat(strings.canonical(again)).isSameAs(again);
  }

  @Test
  void aStringThatTookTheSlotReplacesTheOneBefore() {
    // Two strings with the same hash code land in the same slot.
    String first = strings.canonical(new String("Aa"));
    String collider = strings.canonical(new String("BB"));
    assertThat(collider.hashCode()).isEqualTo(first.hashCode());

    String again = new String("Aa");
    assertThat(strings.canonical(again)).as("the slot holds BB now").isSameAs(again);
    assertThat(strings.canonical(new String("Aa"))).isSameAs(again);
  }
}
