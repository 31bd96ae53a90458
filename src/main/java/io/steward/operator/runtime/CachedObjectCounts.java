package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A gauge of the objects an informer holds, one series per value of one tag, as kube-state-metrics
 * counts pods by phase: the domain says which value an object has (null: not counted), the informer's
 * events keep the counts, and a scrape reads them without touching the cache or the API server.
 * Every known value has its series from the start, zero included, so a query never finds a gap.
 */
public final class CachedObjectCounts<T extends KubernetesObject> implements ResourceEventHandler<T> {
  private final Function<T, String> valueOf;
  private final Map<String, Integer> counts = new LinkedHashMap<>();
  /** The value each cached object was counted under, by namespace/name; guarded by {@code this}. */
  private final Map<String, String> counted = new HashMap<>();

  private CachedObjectCounts(Function<T, String> valueOf, List<String> values) {
    this.valueOf = valueOf;
    values.forEach(value -> counts.put(value, 0));
  }

  /**
   * Registers {@code name{tag=value}} for each of {@code values} and counts the objects whose events
   * {@code informer} delivers (an informer's {@code addEventHandler}) by {@code valueOf}; an object
   * whose value is not among {@code values} is not counted.
   */
  public static <T extends KubernetesObject> CachedObjectCounts<T> register(MeterRegistry registry, String name,
      String description, String tag, List<String> values, Consumer<ResourceEventHandler<T>> informer,
      Function<T, String> valueOf) {
    CachedObjectCounts<T> result = new CachedObjectCounts<>(valueOf, values);
    for (String value : values) {
      Gauge.builder(name, result, counts -> counts.count(value)).description(description).tag(tag, value)
          .register(registry);
    }
    informer.accept(result);
    return result;
  }

  public synchronized int count(String value) {
    return counts.getOrDefault(value, 0);
  }

  @Override
  public void onAdd(T object) {
    put(object);
  }

  @Override
  public void onUpdate(T before, T after) {
    put(after);
  }

  @Override
  public void onDelete(T object, boolean finalStateUnknown) {
    move(key(object), null);
  }

  private void put(T object) {
    String value = valueOf.apply(object);
    move(key(object), value != null && counts.containsKey(value) ? value : null);
  }

  private synchronized void move(String key, String value) {
    String previous = value == null ? counted.remove(key) : counted.put(key, value);
    if (previous != null) {
      counts.merge(previous, -1, Integer::sum);
    }
    if (value != null) {
      counts.merge(value, 1, Integer::sum);
    }
  }

  private static String key(KubernetesObject object) {
    return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
  }
}
