package io.steward.operator.runtime.controller;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.cache.ReadYourWritesCache;
import io.steward.operator.runtime.cache.WatchedKind;
import io.steward.operator.runtime.support.Daemons;
import io.steward.operator.runtime.support.WorkInFlight;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * What a controller is built from, after controller-runtime's manager: the informers, one
 * {@link ReadYourWritesCache} per watched kind in front of them, and a builder that says which
 * events of which kinds wake which requests ({@code For}, {@code Owns}, the event filter), then
 * assembles client-java's controller with the runtime's work queue, metrics and reconcile wrapper.
 */
public final class ControllerManager {
  /** The controller gives up after its ready timeout; the lifecycle starts it only once the caches have synced. */
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(10);

  private final Informers informers;
  private final SharedInformerFactory factory;
  private final MeterRegistry registry;
  private final int workers;
  private final Tracing tracing;
  /** What every reconciler runs inside (sharded mode: the gate of this replica's buckets). */
  private volatile UnaryOperator<Reconciler> around = UnaryOperator.identity();
  private final Map<WatchedKind<?, ?>, ReadYourWritesCache<?>> caches = new LinkedHashMap<>();

  /** @param workers concurrent reconciles */
  public ControllerManager(Informers informers, SharedInformerFactory factory, MeterRegistry registry, int workers) {
    this(informers, factory, registry, workers, Tracing.off());
  }

  /** @param tracing where each reconcile's observation goes ({@link Tracing#off()}: nowhere) */
  public ControllerManager(Informers informers, SharedInformerFactory factory, MeterRegistry registry, int workers,
      Tracing tracing) {
    this.tracing = tracing;
    this.informers = informers;
    this.factory = factory;
    this.registry = registry;
    this.workers = workers;
    long period = ReadYourWritesCache.CONFIRM_WITHIN.toMillis() / 6;
    Daemons.scheduler("unconfirmed-writes").scheduleWithFixedDelay(this::dropUnconfirmedWrites, period, period,
        TimeUnit.MILLISECONDS);
  }

  private synchronized void dropUnconfirmedWrites() {
    caches.values().forEach(ReadYourWritesCache::dropUnconfirmed);
  }

  /**
   * Every controller's reconciler runs inside {@code wrapper}, outside the runtime's instrumentation,
   * so a request it turns away counts as no reconcile (sharded mode: only the requests of this
   * replica's buckets run, each bound to its bucket's term). Before the controllers are built.
   */
  public void wrapReconcilers(UnaryOperator<Reconciler> wrapper) {
    this.around = wrapper;
  }

  public Informers informers() {
    return informers;
  }

  /** The cache a reconciler reads {@code kind} from and tells about its writes; one per kind. */
  @SuppressWarnings("unchecked")
  public synchronized <T extends KubernetesObject, L extends KubernetesListObject> ReadYourWritesCache<T> cache(
      WatchedKind<T, L> kind) {
    return (ReadYourWritesCache<T>) caches.computeIfAbsent(kind, k -> {
      ReadYourWritesCache<T> cache = new ReadYourWritesCache<>(informers.of(kind));
      Gauge.builder("steward_cache_unconfirmed_writes", cache, ReadYourWritesCache::pending)
          .description("The operator's own writes its informer has not shown yet").tag("kind", kind.kind())
          .register(registry);
      return cache;
    });
  }

  /**
   * Starts the declaration of a controller of {@code kind} ({@code For}): its objects wake a request
   * for themselves when they are added or deleted, and when an update passes {@code updateMatters}.
   */
  public <P extends KubernetesObject> Builder<P> newController(String name, WatchedKind<P, ?> kind,
      BiPredicate<P, P> updateMatters) {
    return new Builder<>(name, kind, updateMatters);
  }

  /** Updates that change {@code metadata.generation}: the spec, not the status or metadata. */
  public static <T extends KubernetesObject> BiPredicate<T, T> generationChanged() {
    return (before, after) -> !Objects.equals(before.getMetadata().getGeneration(), after.getMetadata().getGeneration());
  }

  /** The request for the object itself. */
  static Request requestFor(KubernetesObject object) {
    return new Request(object.getMetadata().getNamespace(), object.getMetadata().getName());
  }

  /**
   * Maps an object to the request of its controlling owner when that owner is of {@code ownerKind}
   * (in the object's namespace); null, which wakes nothing, for anything else.
   */
  public static Function<KubernetesObject, Request> controllingOwnerOf(WatchedKind<?, ?> ownerKind) {
    return owned -> {
      List<V1OwnerReference> references = owned.getMetadata().getOwnerReferences();
      if (references == null) {
        return null;
      }
      for (V1OwnerReference reference : references) {
        if (Boolean.TRUE.equals(reference.getController())
            && ownerKind.isKindOf(reference.getApiVersion(), reference.getKind())) {
          return new Request(owned.getMetadata().getNamespace(), reference.getName());
        }
      }
      return null;
    };
  }

  /** One controller's declaration: what it watches, then its reconciler. */
  public final class Builder<P extends KubernetesObject> {
    private final String name;
    private final WatchedKind<P, ?> kind;
    private final List<Consumer<QueueWiring>> sources = new ArrayList<>();
    private Predicate<P> settled = object -> false;

    private Builder(String name, WatchedKind<P, ?> kind, BiPredicate<P, P> updateMatters) {
      this.name = name;
      this.kind = kind;
      sources.add(wiring -> wiring.watch(kind, ControllerManager::requestFor, updateMatters));
    }

    /** {@code Owns}: every change of an object of {@code owned} wakes its controlling owner of the controller's kind. */
    public <T extends KubernetesObject> Builder<P> owns(WatchedKind<T, ?> owned) {
      Function<KubernetesObject, Request> owner = controllingOwnerOf(kind);
      sources.add(wiring -> wiring.watch(owned, owner::apply, (before, after) -> true));
      return this;
    }

    /**
     * Which objects are settled as far as their own record shows: their last change has been handled
     * (typically, their status has observed their generation). Objects this replica takes over from
     * another (a bucket's) are queued settled ones last; none is settled unless declared.
     */
    public Builder<P> settledWhen(Predicate<P> settled) {
      this.settled = settled;
      return this;
    }

    /** Builds the controller around {@code reconciler}; the lifecycle runs it. */
    public ManagedController<P> complete(Reconciler reconciler) {
      ControllerMetrics metrics = new ControllerMetrics(registry, name, workers);
      // Work enters the queue one item at a time, as a worker takes the one before, namespaces taking
      // turns: a change then waits for the first pass in flight to end, not behind other namespaces' items.
      InstrumentedWorkQueue queue = new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics, 1);
      metrics.watchQueueDepth(registry, name, queue::length);
      QueueWiring wiring = new QueueWiring(queue, OffsetDateTime.now(ZoneOffset.UTC));
      sources.forEach(source -> source.accept(wiring));
      WorkInFlight inFlight = new WorkInFlight();
      var controller = ControllerBuilder.defaultBuilder(factory)
          .withName(name)
          .withWorkQueue(queue)
          .withReconciler(around.apply(new InstrumentedReconciler(reconciler, kind.kind(), metrics, inFlight, tracing,
              informers.of(kind)::get)))
          .withWorkerCount(workers)
          .withReadyFunc(informers::hasSynced)
          .withReadyTimeout(READY_TIMEOUT)
          .build();
      return new ManagedController<>(name, controller, queue, metrics, inFlight, informers.of(kind), settled);
    }
  }

  /**
   * Sends a kind's informer events to the queue: the echoes of the controller's own writes are
   * dropped, what replays known state is queued at low priority (see {@link QueueingEventHandler}).
   */
  private final class QueueWiring {
    private final InstrumentedWorkQueue queue;
    private final OffsetDateTime watchingSince;

    QueueWiring(InstrumentedWorkQueue queue, OffsetDateTime watchingSince) {
      this.queue = queue;
      this.watchingSince = watchingSince;
    }

    <T extends KubernetesObject> void watch(WatchedKind<T, ?> kind, Function<T, Request> requestFor,
        BiPredicate<T, T> updateMatters) {
      ReadYourWritesCache<T> cache = cache(kind);
      informers.of(kind).addEventHandler(cache.skippingEchoes(new QueueingEventHandler<>(queue, requestFor,
          updateMatters, object -> informers.of(kind).watchingSince(object, watchingSince))));
      // A write the informer never showed: whatever it stood in for may be gone; look again.
      cache.onUnconfirmed(object -> {
        Request request = requestFor.apply(object);
        if (request != null) {
          queue.add(request);
        }
      });
    }
  }
}
