package io.steward.operator.runtime.cache;

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
 *
 * <p>Several informers may deliver one kind (sharded mode: the informer of objects not yet in a bucket
 * and one per owned bucket), and an object moving between them is added by one and deleted by the
 * other in either order. So an object is counted while any informer holds it: each add holds it once
 * more, each delete once less.
 */
public final class CachedObjectCounts<T extends KubernetesObject> implements ResourceEventHandler<T> {
  private final Function<T, String> valueOf;
  private final Map<String, Integer> counts = new LinkedHashMap<>();
  /** Each cached object's value (null: not counted) and how many informers hold it, by namespace/name; guarded by {@code this}. */
  private final Map<String, Held> held = new HashMap<>();

  private record Held(String value, int holders) {}

  private static final Held NOT_HELD = new Held(null, 0);

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
    change(key(object), valueOf(object), 1);
  }

  @Override
  public void onUpdate(T before, T after) {
    change(key(after), valueOf(after), 0);
  }

  @Override
  public void onDelete(T object, boolean finalStateUnknown) {
    change(key(object), null, -1);
  }

  private String valueOf(T object) {
    String value = valueOf.apply(object);
    return value != null && counts.containsKey(value) ? value : null;
  }

  /** Applies one event: the object's value now ({@code null} on a delete: unchanged), and holders gained or lost. */
  private synchronized void change(String key, String value, int holdersChange) {
    Held before = held.getOrDefault(key, NOT_HELD);
    // An update of an object whose add this handler never saw: held once.
    int holders = holdersChange == 0 ? Math.max(1, before.holders()) : Math.max(0, before.holders() + holdersChange);
    String now;
    if (holders == 0) {
      now = null;
    } else if (holdersChange < 0) {
      now = before.value(); // the informers still holding it have it as it was
    } else {
      now = value;
    }
    if (before.value() != null) {
      counts.merge(before.value(), -1, Integer::sum);
    }
    if (now != null) {
      counts.merge(now, 1, Integer::sum);
    }
    if (holders == 0) {
      held.remove(key);
    } else {
      held.put(key, new Held(now, holders));
    }
  }

  private static String key(KubernetesObject object) {
    return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
  }
}
