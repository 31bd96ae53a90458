package io.steward.operator.runtime.cache;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.DeltaFIFO;
import io.kubernetes.client.informer.impl.DefaultSharedIndexInformer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watchable;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * The informers the operator reads from, one per {@link WatchedKind} and watched namespace (or one
 * cluster-wide per kind), each kind read as one {@link KindInformer}. Each namespace's informers live
 * in their own {@link SharedInformerFactory}, because a factory holds one informer per type. They
 * run on every replica, so a standby is warm when it becomes leader.
 */
public final class Informers {
  /** The namespace of a scope that watches all of them. */
  public static final String ALL_NAMESPACES = "";

  /** How long an informer may fail to list or watch before readiness reports it. */
  public static final Duration LIST_WATCH_GRACE = Duration.ofSeconds(15);

  private record Scope(String namespace, SharedInformerFactory factory) {}

  private final List<Scope> scopes = new ArrayList<>();
  private final ApiClient client;
  private final OwnManagedFields managedFields;
  private final Duration listWatchGrace;
  private final String requirement;
  private final StreamingListerWatcher.Mode listMode;
  private final List<ListWatchHealth> health = new ArrayList<>();
  private final Map<WatchedKind<?, ?>, KindInformer<?>> kinds = new LinkedHashMap<>();
  private final CompletableFuture<Void> synced = new CompletableFuture<>();
  private final Map<WatchedKind<?, ?>, UnaryOperator<KubernetesObject>> transforms = new ConcurrentHashMap<>();
  private final List<Runnable> onStop = new CopyOnWriteArrayList<>();
  private volatile boolean started;
  private final MeterRegistry registry;

  /**
   * @param client the client for lists and watches (no read timeout)
   * @param namespaces the namespaces to watch; empty for all
   * @param fieldManager the operator's field manager: the caches keep only its managedFields entries
   *     ({@link OwnManagedFields})
   */
  public Informers(SharedInformerFactory primary, ApiClient client, List<String> namespaces, String fieldManager,
      Duration listWatchGrace, MeterRegistry registry) {
    this(primary, client, namespaces, fieldManager, listWatchGrace, registry, null);
  }

  /**
   * @param requirement a label selector term every informer made here adds to its kind's own, null for
   *     none (sharded mode: only the objects not in a bucket yet; the buckets' informers are made apart,
   *     {@link #newInformers})
   */
  public Informers(SharedInformerFactory primary, ApiClient client, List<String> namespaces, String fieldManager,
      Duration listWatchGrace, MeterRegistry registry, String requirement) {
    this(primary, client, namespaces, fieldManager, listWatchGrace, registry, requirement, true);
  }

  /**
   * @param streamingLists list with a streaming watch where the API server offers it
   *     ({@link StreamingListerWatcher}); false: page by page, as where it does not
   */
  public Informers(SharedInformerFactory primary, ApiClient client, List<String> namespaces, String fieldManager,
      Duration listWatchGrace, MeterRegistry registry, String requirement, boolean streamingLists) {
    InformerStopLogFilter.install();
    this.listMode = new StreamingListerWatcher.Mode(streamingLists);
    this.client = client;
    this.registry = registry;
    this.managedFields = new OwnManagedFields(fieldManager, client.getJSON().getGson());
    this.listWatchGrace = listWatchGrace;
    this.requirement = requirement;
    for (String namespace : namespaces.isEmpty() ? List.of(ALL_NAMESPACES) : namespaces) {
      scopes.add(new Scope(namespace, scopes.isEmpty() ? primary : new SharedInformerFactory(client)));
    }
  }

  /** The informers of {@code kind}, registered on first use (before {@link #start}). */
  @SuppressWarnings("unchecked")
  public synchronized <T extends KubernetesObject, L extends KubernetesListObject> KindInformer<T> of(
      WatchedKind<T, L> kind) {
    return (KindInformer<T>) kinds.computeIfAbsent(kind, this::register);
  }

  /**
   * Every kind registered, in the order of registration. Not synchronized, as {@link #hasSynced}: the
   * kinds do not change once the informers run.
   */
  public Map<WatchedKind<?, ?>, KindInformer<?>> kinds() {
    return Collections.unmodifiableMap(kinds);
  }

  private <T extends KubernetesObject, L extends KubernetesListObject> KindInformer<T> register(WatchedKind<T, L> kind) {
    Map<String, SharedIndexInformer<T>> informers = new LinkedHashMap<>();
    WatchedKind<T, L> selected = requirement != null ? kind.alsoSelecting(requirement) : kind;
    for (Scope scope : scopes) {
      ListWatchHealth check = new ListWatchHealth(kind.plural() + " in " + where(scope.namespace()), listWatchGrace,
          Clock.systemUTC());
      bindMetrics(check);
      SharedIndexInformer<T> informer = scope.factory().sharedIndexInformerFor(
          recheckingSyncOnWatch(new StreamingListerWatcher<>(client, selected, scope.namespace(), check, listMode)),
          kind.type(), 0, check.exceptionHandler());
      informer.setTransform(object -> beforeCaching(kind, object));
      Gauge.builder("steward_informer_synced", informer, i -> i.hasSynced() ? 1 : 0)
          .description("1 once the informer has completed its first list").tag("informer", check.name())
          .register(registry);
      informers.put(scope.namespace(), informer);
    }
    KindInformer<T> result = new KindInformer<>(kind.plural(), informers);
    result.addEventHandler(new SyncRecheck<>());
    return result;
  }

  /**
   * More informers of {@code kind}, one per namespace scope, each selecting also {@code requirement}:
   * made as the kind's own (the same transform, a health check named {@code what}), but neither
   * started nor counted in readiness. Whoever asks runs them and reads what they hold.
   */
  public <T extends KubernetesObject, L extends KubernetesListObject> Map<String, SharedIndexInformer<T>> newInformers(
      WatchedKind<T, L> kind, String requirement, String what) {
    WatchedKind<T, L> selected = kind.alsoSelecting(requirement);
    Map<String, SharedIndexInformer<T>> byScope = new LinkedHashMap<>();
    for (Scope scope : scopes) {
      ListWatchHealth check = new ListWatchHealth(kind.plural() + " of " + what + " in " + where(scope.namespace()),
          listWatchGrace, Clock.systemUTC());
      SharedIndexInformer<T> informer = new DefaultSharedIndexInformer<T, L>(kind.type(),
          new StreamingListerWatcher<>(client, selected, scope.namespace(), check, listMode), 0, new Cache<>(),
          check.exceptionHandler());
      informer.setTransform(object -> beforeCaching(kind, object));
      byScope.put(scope.namespace(), informer);
    }
    return byScope;
  }

  /**
   * Has {@code transform} applied to each object of {@code kind} before it is cached, after the
   * runtime's own slimming: a controller's way to make what it caches cheaper (share data with other
   * cached objects, say). It may change the object's fields, and must leave them as the API server
   * sent them in meaning. Before {@link #start} only.
   */
  @SuppressWarnings("unchecked")
  public <T extends KubernetesObject> void transformBeforeCaching(WatchedKind<T, ?> kind, UnaryOperator<T> transform) {
    if (started) {
      throw new IllegalStateException("the informers have started: a transform of " + kind.plural() + " comes too late");
    }
    if (transforms.putIfAbsent(kind, object -> transform.apply((T) object)) != null) {
      throw new IllegalStateException("the " + kind.plural() + " informer has a transform already");
    }
  }

  /**
   * What every informer of {@code kind} applies to an object before caching it. client-java also
   * hands the transform the tombstone of an object that vanished while the watch was down
   * ({@link DeltaFIFO.DeletedFinalStateUnknown}, from a re-list): it leaves the cache as it is. A
   * transform that failed on it would make the informer drop the deletion, and keep the object.
   */
  KubernetesObject beforeCaching(WatchedKind<?, ?> kind, KubernetesObject object) {
    if (object instanceof DeltaFIFO.DeletedFinalStateUnknown<?>) {
      return object;
    }
    KubernetesObject slimmed = managedFields.keepOnlyOwn(object);
    UnaryOperator<KubernetesObject> transform = transforms.get(kind);
    return transform == null ? slimmed : transform.apply(slimmed);
  }

  /**
   * Completes once every informer has synced. An informer syncs while it delivers the initial list:
   * it has synced by the time it hands out its last initially listed object, or, for an empty list,
   * by the time its reflector opens the watch. Both moments recheck here, so nothing polls.
   */
  public CompletableFuture<Void> synced() {
    return synced;
  }

  private void recheckSynced() {
    if (!synced.isDone() && hasSynced()) {
      synced.complete(null);
    }
  }

  private <T extends KubernetesObject, L extends KubernetesListObject> ListerWatcher<T, L> recheckingSyncOnWatch(
      ListerWatcher<T, L> delegate) {
    return new ListerWatcher<>() {
      @Override
      public L list(CallGeneratorParams params) throws ApiException {
        return delegate.list(params);
      }

      @Override
      public Watchable<T> watch(CallGeneratorParams params) throws ApiException {
        recheckSynced(); // the reflector has just stored the list
        return delegate.watch(params);
      }
    };
  }

  /** Rechecks on each event until every informer has synced; a no-op after. */
  private final class SyncRecheck<T extends KubernetesObject> implements ResourceEventHandler<T> {
    @Override
    public void onAdd(T object) {
      recheckSynced();
    }

    @Override
    public void onUpdate(T before, T after) {
      recheckSynced();
    }

    @Override
    public void onDelete(T object, boolean finalStateUnknown) {
      recheckSynced();
    }
  }

  /** Not synchronized: the informers' handlers ask, and the kinds do not change once they run. */
  public boolean hasSynced() {
    return kinds.values().stream().allMatch(KindInformer::hasSynced);
  }

  /** Informers that have not completed their first list, for health details. */
  public synchronized List<String> unsynced() {
    List<String> result = new ArrayList<>();
    for (KindInformer<?> kind : kinds.values()) {
      kind.unsynced().forEach(namespace -> result.add(kind.resource() + " in " + where(namespace)));
    }
    return result;
  }

  /** Informers that have failed to list or watch for longer than the grace period, with their errors. */
  public Map<String, String> failing() {
    Map<String, String> result = new LinkedHashMap<>();
    for (ListWatchHealth check : health) {
      ListWatchHealth.Failure failure = check.failing();
      if (failure != null) {
        result.put(check.name(), "since " + failure.since() + ": " + failure.error());
      }
    }
    return result;
  }

  private static String where(String namespace) {
    return namespace.equals(ALL_NAMESPACES) ? "all namespaces" : "namespace " + namespace;
  }

  /**
   * {@code steward_informer_failing{informer}} (1 while an informer has failed for longer than the
   * grace period) and {@code steward_informer_list_watch_failures_total{informer}}.
   */
  private void bindMetrics(ListWatchHealth check) {
    health.add(check);
    Gauge.builder("steward_informer_failing", check, c -> c.failing() == null ? 0 : 1)
        .description("1 while the informer has failed to list or watch for longer than its grace period")
        .tag("informer", check.name()).register(registry);
    FunctionCounter.builder("steward_informer_list_watch_failures", check, ListWatchHealth::failures)
        .description("Failed lists and watches of the informer").tag("informer", check.name()).register(registry);
  }

  public List<String> namespaces() {
    return scopes.stream().map(scope -> scope.namespace().equals(ALL_NAMESPACES) ? "*" : scope.namespace()).toList();
  }

  public void start() {
    started = true;
    kinds.values().forEach(KindInformer::starting);
    scopes.forEach(scope -> scope.factory().startAllRegisteredInformers());
  }

  /** {@code whenStopped} runs at {@link #stop}, after the kinds' own informers stopped. */
  public void onStop(Runnable whenStopped) {
    onStop.add(whenStopped);
  }

  public void stop() {
    scopes.forEach(scope -> scope.factory().stopAllRegisteredInformers());
    onStop.forEach(Runnable::run);
  }
}
