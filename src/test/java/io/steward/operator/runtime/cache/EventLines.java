package io.steward.operator.runtime.cache;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A handler that writes each event it is told as a line, {@code add <object>}, {@code update <after>}
 * or {@code delete <object>}, for tests that compare what handlers were told.
 */
public final class EventLines<T extends KubernetesObject> implements ResourceEventHandler<T> {
  private final Function<T, String> describe;
  private final String finalStateUnknown;
  private final Consumer<String> sink;

  /**
   * @param describe how an object is written
   * @param finalStateUnknown appended to a delete whose final state is unknown ("" for nothing)
   * @param sink where each line goes
   */
  public EventLines(Function<T, String> describe, String finalStateUnknown, Consumer<String> sink) {
    this.describe = describe;
    this.finalStateUnknown = finalStateUnknown;
    this.sink = sink;
  }

  @Override
  public void onAdd(T object) {
    sink.accept("add " + describe.apply(object));
  }

  @Override
  public void onUpdate(T before, T after) {
    sink.accept("update " + describe.apply(after));
  }

  @Override
  public void onDelete(T object, boolean unknown) {
    sink.accept("delete " + describe.apply(object) + (unknown ? finalStateUnknown : ""));
  }
}
