package io.steward.operator.bench;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppList;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The benchmark's own view of the cluster, through watches (informers) of a separate client: when
 * each WebApp converged (its status.observedGeneration equals its generation, its Deployment exists
 * and, when it has a port, its Service too), and when a Deployment first showed a given image. Times
 * are taken when the watch event arrives, so polling neither delays nor loads anything.
 */
final class Observer implements AutoCloseable {
  /** What is known of one WebApp, by namespace/name. */
  private static final class State {
    volatile Long generation;
    volatile Long observedGeneration;
    volatile boolean wantsService;
    volatile boolean deployment;
    volatile boolean service;
    volatile long convergedAt; // System.nanoTime(), 0 while not converged
  }

  private final SharedInformerFactory factory;
  private final Map<String, State> states = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> convergedByNamespace = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Long>> imageWaits = new ConcurrentHashMap<>();
  private final SharedIndexInformer<WebApp> webApps;
  private final SharedIndexInformer<V1Deployment> deployments;
  private final SharedIndexInformer<V1Service> services;

  Observer(ApiClient client) {
    factory = new SharedInformerFactory(client);
    webApps = factory.sharedIndexInformerFor(new GenericKubernetesApi<>(WebApp.class, WebAppList.class,
        WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL, client), WebApp.class, 0);
    deployments = factory.sharedIndexInformerFor(new GenericKubernetesApi<>(V1Deployment.class,
        V1DeploymentList.class, "apps", "v1", "deployments", client), V1Deployment.class, 0);
    services = factory.sharedIndexInformerFor(new GenericKubernetesApi<>(V1Service.class, V1ServiceList.class,
        "", "v1", "services", client), V1Service.class, 0);
    webApps.addEventHandler(handler(this::onWebApp, w -> { }));
    deployments.addEventHandler(handler(this::onDeployment, d -> update(d, s -> s.deployment = false)));
    services.addEventHandler(handler(this::onService, s -> update(s, st -> st.service = false)));
    factory.startAllRegisteredInformers();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!(webApps.hasSynced() && deployments.hasSynced() && services.hasSynced())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the benchmark's own informers did not sync within 60 s");
      }
      sleep(20);
    }
  }

  private static <T extends KubernetesObject> ResourceEventHandler<T> handler(Consumer<T> upsert, Consumer<T> delete) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        upsert.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        upsert.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        delete.accept(obj);
      }
    };
  }

  private static String key(KubernetesObject o) {
    return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  private void onWebApp(WebApp w) {
    update(w, s -> {
      s.generation = w.getMetadata().getGeneration();
      s.observedGeneration = w.getStatus().observedGeneration();
      s.wantsService = w.getSpec() != null && w.getSpec().hasPort();
    });
  }

  private void onDeployment(V1Deployment d) {
    update(d, s -> s.deployment = true);
    if (!imageWaits.isEmpty() && d.getSpec() != null && d.getSpec().getTemplate().getSpec() != null) {
      long now = System.nanoTime();
      for (V1Container c : d.getSpec().getTemplate().getSpec().getContainers()) {
        CompletableFuture<Long> wait = imageWaits.remove(key(d) + "@" + c.getImage());
        if (wait != null) {
          wait.complete(now);
        }
      }
    }
  }

  private void onService(V1Service svc) {
    update(svc, s -> s.service = true);
  }

  private void update(KubernetesObject o, Consumer<State> change) {
    State state = states.computeIfAbsent(key(o), k -> new State());
    AtomicInteger converged = convergedByNamespace.computeIfAbsent(o.getMetadata().getNamespace(),
        ns -> new AtomicInteger());
    synchronized (state) {
      change.accept(state);
      boolean done = state.generation != null && Objects.equals(state.generation, state.observedGeneration)
          && state.deployment && (!state.wantsService || state.service);
      if (done && state.convergedAt == 0) {
        state.convergedAt = System.nanoTime();
        converged.incrementAndGet();
      } else if (!done && state.convergedAt != 0) {
        state.convergedAt = 0;
        converged.decrementAndGet();
      }
    }
  }

  /** WebApps in {@code namespace} converged now. */
  int convergedIn(String namespace) {
    AtomicInteger count = convergedByNamespace.get(namespace);
    return count == null ? 0 : count.get();
  }

  /**
   * Waits until {@code expected} WebApps of {@code namespace} have converged; returns the
   * System.nanoTime() at which the last of them did, or -1 on timeout.
   */
  long awaitConverged(String namespace, int expected, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (convergedIn(namespace) >= expected) {
        String prefix = namespace + "/";
        return states.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
            .mapToLong(e -> e.getValue().convergedAt).max().orElse(-1);
      }
      sleep(20);
    }
    return -1;
  }

  /** When WebApp {@code namespace/name} converged (System.nanoTime()), 0 if it has not. */
  long convergedAt(String namespace, String name) {
    State state = states.get(namespace + "/" + name);
    return state == null ? 0 : state.convergedAt;
  }

  /** Completes with the System.nanoTime() at which Deployment namespace/name first shows {@code image}. */
  CompletableFuture<Long> whenDeploymentImage(String namespace, String name, String image) {
    CompletableFuture<Long> future = new CompletableFuture<>();
    imageWaits.put(namespace + "/" + name + "@" + image, future);
    return future;
  }

  /** Forgets what it saw in a namespace that was emptied. */
  void forget(String namespace) {
    synchronized (this) {
      states.keySet().removeIf(k -> k.startsWith(namespace + "/"));
      convergedByNamespace.remove(namespace);
    }
  }

  @Override
  public void close() {
    factory.stopAllRegisteredInformers();
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
