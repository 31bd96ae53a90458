package io.steward.operator.runtime;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
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
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watchable;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers the operator reads from, one per {@link WatchedKind} and watched namespace (or one
 * cluster-wide per kind). Each namespace's informers live in their own {@link SharedInformerFactory},
 * because a factory holds one informer per type. They run on every replica, so a standby is warm
 * when it becomes leader.
 */
public final class Informers {
  private static final Logger log = LoggerFactory.getLogger(Informers.class);

  /** The namespace of a scope that watches all of them. */
  static final String ALL_NAMESPACES = "";

  /** How long an informer may fail to list or watch before readiness reports it. */
  public static final Duration LIST_WATCH_GRACE = Duration.ofSeconds(15);

  private record Scope(String namespace, SharedInformerFactory factory) {}

  private final List<Scope> scopes = new ArrayList<>();
  private final ApiClient client;
  private final String fieldManager;
  private final Duration listWatchGrace;
  private final List<ListWatchHealth> health = new ArrayList<>();
  private final Map<WatchedKind<?, ?>, KindInformer<?>> kinds = new LinkedHashMap<>();
  private final CompletableFuture<Void> synced = new CompletableFuture<>();
  private final Map<WatchedKind<?, ?>, UnaryOperator<KubernetesObject>> transforms = new ConcurrentHashMap<>();
  private volatile boolean started;
  private final MeterRegistry registry;
  /** Sharded mode: the number of buckets; 0 otherwise. */
  private final int buckets;
  private ExecutorService bucketInformers;
  private ScheduledExecutorService bucketSyncChecks;
  private final List<MisfiledListener> misfiled = new CopyOnWriteArrayList<>();

  /**
   * Sharded mode: an object that a bucket's informer holds (its label names that bucket) while its
   * name belongs to another bucket. Only the owner of the bucket its name belongs to may reconcile it,
   * and that owner's informers do not show it.
   */
  @FunctionalInterface
  public interface MisfiledListener {
    /**
     * @param labelled the bucket its label names
     * @param stillThere whether that bucket's informer here still holds it
     */
    void misfiled(WatchedKind<?, ?> kind, KubernetesObject object, int labelled, BooleanSupplier stillThere);
  }

  /** Sharded mode: {@code listener} is told of each misfiled object (see {@link MisfiledListener}). */
  public void onMisfiled(MisfiledListener listener) {
    misfiled.add(listener);
  }

  /** Sharded mode: when each bucket cached here began to be watched. */
  private final Map<Integer, OffsetDateTime> bucketWatchingSince = new ConcurrentHashMap<>();

  /** How long buckets must have stopped leaving a group before it is replaced by one without them. */
  private static final Duration COMPACTION_DELAY = Duration.ofSeconds(5);

  /** Sharded mode: the group serving each bucket cached here (changed under this object's lock). */
  private final Map<Integer, BucketGroup> groupOf = new ConcurrentHashMap<>();

  /** Sharded mode: buckets listed and watched together, by one informer per kind and namespace scope. */
  private static final class BucketGroup {
    final Set<Integer> selected;
    final Map<KindInformer<?>, BucketViews.Group<?>> byKind = new LinkedHashMap<>();
    ScheduledFuture<?> compaction;
    /** The group listing its buckets again without those it serves no longer, until it takes over. */
    BucketGroup replacement;
    volatile boolean stopped;

    BucketGroup(Set<Integer> selected) {
      this.selected = Set.copyOf(selected);
    }

    boolean synced() {
      return byKind.values().stream().allMatch(BucketViews.Group::synced);
    }

    void stop() {
      stopped = true;
      if (compaction != null) {
        compaction.cancel(false);
      }
      if (replacement != null) {
        replacement.stop();
      }
      byKind.values().forEach(BucketViews.Group::stop);
    }
  }

  /**
   * @param client the client for lists and watches (no read timeout)
   * @param namespaces the namespaces to watch; empty for all
   * @param fieldManager the operator's field manager: the caches keep only its entries of
   *     {@code metadata.managedFields}, which tell what it set before (see {@link #keepOnlyOwnManagedFields})
   */
  public Informers(SharedInformerFactory primary, ApiClient client, List<String> namespaces, String fieldManager,
      Duration listWatchGrace, MeterRegistry registry) {
    this(primary, client, namespaces, fieldManager, listWatchGrace, registry, 0);
  }

  /**
   * Sharded mode when {@code buckets} is positive: each kind's informers per namespace hold only the
   * objects not labelled with a bucket yet ({@link BucketHash#LABEL}); the objects of each bucket this
   * replica owns come from informers of their own ({@link #startBucket}), so a replica caches its share.
   */
  public Informers(SharedInformerFactory primary, ApiClient client, List<String> namespaces, String fieldManager,
      Duration listWatchGrace, MeterRegistry registry, int buckets) {
    InformerStopLogFilter.install();
    this.buckets = buckets;
    if (buckets > 0) {
      bucketInformers = Executors.newCachedThreadPool(Daemons.named("bucket-informer"));
      bucketSyncChecks = Daemons.scheduler("bucket-informer-sync");
    }
    this.client = client;
    this.registry = registry;
    this.fieldManager = fieldManager;
    this.listWatchGrace = listWatchGrace;
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

  private <T extends KubernetesObject, L extends KubernetesListObject> KindInformer<T> register(WatchedKind<T, L> kind) {
    Map<String, SharedIndexInformer<T>> informers = new LinkedHashMap<>();
    WatchedKind<T, L> unbucketed = buckets > 0 ? kind.alsoSelecting("!" + BucketHash.LABEL) : kind;
    for (Scope scope : scopes) {
      ListWatchHealth check = new ListWatchHealth(kind.plural() + " in " + where(scope.namespace()), listWatchGrace,
          Clock.systemUTC());
      bindMetrics(check);
      SharedIndexInformer<T> informer = scope.factory().sharedIndexInformerFor(
          recheckingSyncOnWatch(check.listerWatcher(client, unbucketed.listCalls(client, scope.namespace()),
              kind.type(), kind.listType())), kind.type(), 0, check.exceptionHandler());
      informer.setTransform(object -> beforeCaching(kind, object));
      Gauge.builder("steward_informer_synced", informer, i -> i.hasSynced() ? 1 : 0)
          .description("1 once the informer has completed its first list").tag("informer", check.name())
          .register(registry);
      informers.put(scope.namespace(), informer);
    }
    KindInformer<T> result = new KindInformer<>(kind.plural(), informers, buckets);
    result.addEventHandler(new SyncRecheck<>());
    result.onMisfiled((object, labelled, stillThere) -> misfiled.forEach(l -> l.misfiled(kind, object, labelled,
        stillThere)));
    return result;
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
   * What every informer of {@code kind} applies to an object before caching it, bucket informers too.
   * client-java also hands the transform the tombstone of an object that vanished while the watch was
   * down ({@link DeltaFIFO.DeletedFinalStateUnknown}, from a re-list): it leaves the cache as it is. A
   * transform that fails on it would make the informer drop the deletion, and the cache would keep the
   * object for good.
   */
  KubernetesObject beforeCaching(WatchedKind<?, ?> kind, KubernetesObject object) {
    if (object instanceof DeltaFIFO.DeletedFinalStateUnknown<?>) {
      return object;
    }
    KubernetesObject slimmed = keepOnlyOwnManagedFields(object);
    UnaryOperator<KubernetesObject> transform = transforms.get(kind);
    return transform == null ? slimmed : transform.apply(slimmed);
  }

  /**
   * Of {@code metadata.managedFields}, the cache keeps only the operator's own entries for the object
   * itself (not those for a subresource such as status): they tell which fields it set before; the
   * rest would only cost memory. Their {@code fieldsV1} is kept as deflated JSON text, because decoded
   * it is a tree of maps, one per field, many times the size of the text, and the text repeats the same
   * few keys for every field (read it back with {@link #fieldsV1}). The lenient Gson never writes
   * managedFields (see {@link LenientJson}), so this form is never sent to the API server.
   */
  KubernetesObject keepOnlyOwnManagedFields(KubernetesObject object) {
    V1ObjectMeta metadata = object.getMetadata();
    if (metadata != null && metadata.getManagedFields() != null) {
      metadata.setManagedFields(metadata.getManagedFields().stream()
          .filter(entry -> fieldManager.equals(entry.getManager()))
          .filter(entry -> entry.getSubresource() == null || entry.getSubresource().isEmpty())
          .map(this::withFieldsDeflated)
          .toList());
    }
    return object;
  }

  private V1ManagedFieldsEntry withFieldsDeflated(V1ManagedFieldsEntry entry) {
    if (entry.getFieldsV1() != null && !(entry.getFieldsV1() instanceof DeflatedJson)) {
      entry.setFieldsV1(DeflatedJson.of(client.getJSON().getGson().toJson(entry.getFieldsV1())));
    }
    return entry;
  }

  /**
   * The {@code fieldsV1} of a managedFields entry as a JSON tree, whether it is cached deflated (see
   * {@link #keepOnlyOwnManagedFields}) or decoded, as in an API server's response.
   */
  public static JsonElement fieldsV1(V1ManagedFieldsEntry entry, Gson gson) {
    Object fields = entry.getFieldsV1();
    return fields instanceof DeflatedJson deflated ? JsonParser.parseString(deflated.text()) : gson.toJsonTree(fields);
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

  /**
   * Sharded mode: the buckets whose informers are not running yet get them, one informer per kind
   * and namespace scope for all of them together; completes once every one of {@code buckets} has
   * listed or been let go meanwhile (the others' work must not wait for a bucket that will not list).
   */
  public synchronized CompletableFuture<Void> startBuckets(Set<Integer> buckets) {
    Set<Integer> fresh = new TreeSet<>(buckets);
    fresh.removeAll(groupOf.keySet());
    if (!fresh.isEmpty()) {
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      BucketGroup group = startGroup(fresh, false);
      fresh.forEach(bucket -> {
        groupOf.put(bucket, group);
        bucketWatchingSince.putIfAbsent(bucket, now);
      });
    }
    Set<Integer> awaited = Set.copyOf(buckets);
    return whenTrue(() -> awaited.stream().allMatch(bucket -> bucketSynced(bucket) || !groupOf.containsKey(bucket)));
  }

  private CompletableFuture<Void> whenTrue(BooleanSupplier condition) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    var check = bucketSyncChecks.scheduleWithFixedDelay(() -> {
      if (condition.getAsBoolean()) {
        result.complete(null);
      }
    }, 0, 50, TimeUnit.MILLISECONDS);
    return result.whenComplete((done, failure) -> check.cancel(false));
  }

  /**
   * Informers for {@code selected}, one per kind and namespace scope, serving them at once or, for
   * {@code shadowing}, replacing their current group once they have listed ({@link #compact}).
   */
  private BucketGroup startGroup(Set<Integer> selected, boolean shadowing) {
    BucketGroup group = new BucketGroup(selected);
    String selector = BucketHash.LABEL + " in ("
        + String.join(",", selected.stream().sorted().map(String::valueOf).toList()) + ")";
    for (Map.Entry<WatchedKind<?, ?>, KindInformer<?>> entry : kinds.entrySet()) {
      group.byKind.put(entry.getValue(), startGroup(entry.getKey(), entry.getValue(), selected, selector, shadowing));
    }
    return group;
  }

  @SuppressWarnings("unchecked")
  private <T extends KubernetesObject, L extends KubernetesListObject> BucketViews.Group<?> startGroup(
      WatchedKind<?, ?> watched, KindInformer<?> cache, Set<Integer> selected, String selector, boolean shadowing) {
    WatchedKind<T, L> kind = (WatchedKind<T, L>) watched;
    KindInformer<T> kindInformer = (KindInformer<T>) cache;
    WatchedKind<T, L> bucketed = kind.alsoSelecting(selector);
    Map<String, SharedIndexInformer<T>> byScope = new LinkedHashMap<>();
    for (Scope scope : scopes) {
      ListWatchHealth check = new ListWatchHealth(kind.plural() + " of buckets " + selected + " in "
          + where(scope.namespace()), listWatchGrace, Clock.systemUTC());
      SharedIndexInformer<T> informer = new DefaultSharedIndexInformer<T, L>(kind.type(),
          check.listerWatcher(client, bucketed.listCalls(client, scope.namespace()), kind.type(), kind.listType()), 0,
          new Cache<>(), check.exceptionHandler());
      informer.setTransform(object -> beforeCaching(kind, object));
      byScope.put(scope.namespace(), informer);
    }
    BucketViews<T> views = kindInformer.bucketViews();
    BucketViews.Group<T> group = shadowing ? views.shadow(byScope) : views.serve(selected, byScope);
    byScope.values().forEach(informer -> bucketInformers.submit(informer::run));
    return group;
  }

  /**
   * Sharded mode: the buckets each group of bucket informers lists and watches, those serving first,
   * then any replacement still listing; a bucket a group watches but no longer serves is in
   * brackets.
   */
  public synchronized List<String> bucketGroups() {
    List<String> result = new ArrayList<>();
    Set<BucketGroup> groups = new LinkedHashSet<>(groupOf.values());
    groups.forEach(group -> result.add(String.join(",", group.selected.stream().sorted()
        .map(bucket -> groupOf.get(bucket) == group ? String.valueOf(bucket) : "[" + bucket + "]").toList())));
    groups.stream().filter(group -> group.replacement != null).forEach(group -> result.add(String.join(",",
        group.replacement.selected.stream().sorted().map(String::valueOf).toList()) + " (listing)"));
    return result;
  }

  /** Sharded mode: the informers of {@code bucket} no longer show it; its objects leave the caches. */
  public synchronized void stopBucket(int bucket) {
    bucketWatchingSince.remove(bucket);
    BucketGroup group = groupOf.remove(bucket);
    if (group == null) {
      return;
    }
    kinds.values().forEach(kind -> kind.bucketViews().letGo(bucket));
    if (serving(group).isEmpty()) {
      group.stop();
    } else {
      compactLater(group);
    }
  }

  /** The buckets {@code group} serves: those it selects that were neither let go nor moved to a replacement. */
  private Set<Integer> serving(BucketGroup group) {
    Set<Integer> serving = new TreeSet<>();
    groupOf.forEach((bucket, servedBy) -> {
      if (servedBy == group) {
        serving.add(bucket);
      }
    });
    return serving;
  }

  /**
   * A group watching buckets it serves no longer is replaced by one watching only those it serves,
   * once buckets have stopped leaving it for a while: so a replica that hands buckets over also stops
   * receiving, decoding and dropping their events.
   */
  private void compactLater(BucketGroup group) {
    if (group.compaction != null) {
      group.compaction.cancel(false);
    }
    group.compaction = bucketSyncChecks.schedule(() -> compact(group), COMPACTION_DELAY.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private synchronized void compact(BucketGroup group) {
    group.compaction = null;
    Set<Integer> serving = serving(group);
    if (group.stopped || group.replacement != null || serving.equals(group.selected)) {
      return;
    }
    BucketGroup replacement = startGroup(serving, true);
    group.replacement = replacement;
    log.debug("Buckets {} are listed anew, without the others their informers watched ({})", serving,
        group.selected);
    whenTrue(() -> replacement.stopped || replacement.synced()).thenRun(() -> takeOver(group, replacement));
  }

  private synchronized void takeOver(BucketGroup group, BucketGroup replacement) {
    group.replacement = null;
    Set<Integer> moving = new TreeSet<>(replacement.selected);
    moving.retainAll(serving(group));
    if (replacement.stopped || moving.isEmpty()) {
      replacement.stop();
      return;
    }
    replacement.byKind.forEach((kind, views) -> takeOver(kind, views, moving));
    moving.forEach(bucket -> groupOf.put(bucket, replacement));
    if (serving(group).isEmpty()) {
      group.stop();
    }
    if (!serving(replacement).equals(replacement.selected)) {
      compactLater(replacement);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends KubernetesObject> void takeOver(KindInformer<?> kind, BucketViews.Group<?> group,
      Set<Integer> moving) {
    ((KindInformer<T>) kind).bucketViews().takeOver((BucketViews.Group<T>) group, moving);
  }

  /**
   * When the informer that holds {@code object} began watching: its bucket's informer's start for an
   * object labelled with a bucket whose informer runs here, {@code otherwise} for the rest.
   */
  public OffsetDateTime watchingSince(KubernetesObject object, OffsetDateTime otherwise) {
    return bucketWatchingSince.isEmpty() ? otherwise : bucketWatchingSince.getOrDefault(BucketHash.labelled(object),
        otherwise);
  }

  /** Sharded mode: whether every kind's informers of {@code bucket} have completed their first list. */
  public boolean bucketSynced(int bucket) {
    return kinds.values().stream().allMatch(kind -> kind.bucketSynced(bucket));
  }

  public List<String> namespaces() {
    return scopes.stream().map(scope -> scope.namespace().equals(ALL_NAMESPACES) ? "*" : scope.namespace()).toList();
  }

  public void start() {
    started = true;
    kinds.values().forEach(KindInformer::starting);
    scopes.forEach(scope -> scope.factory().startAllRegisteredInformers());
  }

  public void stop() {
    scopes.forEach(scope -> scope.factory().stopAllRegisteredInformers());
    if (buckets > 0) {
      synchronized (this) {
        Set.copyOf(groupOf.values()).forEach(BucketGroup::stop);
      }
      bucketInformers.shutdownNow();
      bucketSyncChecks.shutdownNow();
    }
  }
}
