package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CachedObjectCountsTest {
  private final List<ResourceEventHandler<V1Pod>> handlers = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final CachedObjectCounts<V1Pod> counts = CachedObjectCounts.register(registry, "pods", "test", "phase",
      List.of("Pending", "Running"), handlers::add, pod -> pod.getStatus().getPhase());

  @Test
  void countsEachObjectUnderItsCurrentValue() {
    counts.onAdd(pod("a", "Pending"));
    counts.onAdd(pod("b", "Pending"));
    counts.onUpdate(pod("a", "Pending"), pod("a", "Running"));
    counts.onAdd(pod("c", "Unknown"));
    assertThat(counts.count("Pending")).isEqualTo(1);
    assertThat(counts.count("Running")).isEqualTo(1);
    counts.onDelete(pod("a", "Running"), false);
    assertThat(counts.count("Running")).isZero();
    assertThat(registry.get("pods").tag("phase", "Pending").gauge().value()).isEqualTo(1.0);
  }

  @Test
  void anObjectMovingBetweenInformersStaysCountedWhicheverEventComesFirst() {
    // The bucket informer's add before the unbucketed informer's delete...
    counts.onAdd(pod("a", "Pending"));
    counts.onAdd(pod("a", "Running"));
    counts.onDelete(pod("a", "Pending"), false);
    assertThat(counts.count("Running")).isEqualTo(1);
    assertThat(counts.count("Pending")).isZero();
    // ...or after it.
    counts.onAdd(pod("b", "Pending"));
    counts.onDelete(pod("b", "Pending"), false);
    counts.onAdd(pod("b", "Pending"));
    assertThat(counts.count("Pending")).isEqualTo(1);
    // Gone from both: not counted.
    counts.onDelete(pod("a", "Running"), true);
    assertThat(counts.count("Running")).isZero();
  }

  @Test
  void anUpdateWhoseAddWasNeverSeenCountsTheObjectOnce() {
    counts.onUpdate(pod("a", "Pending"), pod("a", "Running"));
    counts.onUpdate(pod("a", "Running"), pod("a", "Running"));
    assertThat(counts.count("Running")).isEqualTo(1);
    counts.onDelete(pod("a", "Running"), false);
    assertThat(counts.count("Running")).isZero();
  }

  private static V1Pod pod(String name, String phase) {
    return new V1Pod().metadata(new V1ObjectMeta().namespace("ns").name(name)).status(new V1PodStatus().phase(phase));
  }
}
