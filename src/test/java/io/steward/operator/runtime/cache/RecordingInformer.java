package io.steward.operator.runtime.cache;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Cache;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/** An informer that only records the handlers client-java would run a thread for. */
public final class RecordingInformer<T extends KubernetesObject> {
  public final List<ResourceEventHandler<T>> handlers = new ArrayList<>();
  private final Cache<T> cache = new Cache<>();

  @SuppressWarnings("unchecked")
  public SharedIndexInformer<T> informer() {
    return (SharedIndexInformer<T>) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {SharedIndexInformer.class}, (proxy, method, args) -> switch (method.getName()) {
          case "addEventHandler" -> {
            handlers.add((ResourceEventHandler<T>) args[0]);
            yield null;
          }
          case "getIndexer" -> cache;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "RecordingInformer";
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
