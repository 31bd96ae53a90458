package io.steward.operator.runtime.sharding;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.cache.KindInformer;
import io.steward.operator.runtime.cache.WatchedKind;
import io.steward.operator.runtime.support.Daemons;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded mode: the informers of the buckets this replica caches. The kinds' own informers
 * ({@link Informers}, made with {@link #UNBUCKETED}) hold only the objects not in a bucket yet; the
 * buckets taken together are listed and watched together, by one informer per kind and namespace
 * scope selecting {@code steward.io/bucket in (…)}, and each kind's {@link BucketViews} shows each
 * bucket's objects as if it had informers of its own. So a replica caches its share, with a few
 * informers whatever it owns.
 */
public final class BucketInformers {
  private static final Logger log = LoggerFactory.getLogger(BucketInformers.class);

  /** What the kinds' own informers select in sharded mode: objects not labelled with a bucket yet. */
  public static final String UNBUCKETED = "!" + BucketHash.LABEL;

  /** How long buckets must have stopped leaving a group before it is replaced by one without them. */
  private static final Duration COMPACTION_DELAY = Duration.ofSeconds(5);

  /**
   * An object that a bucket's informer holds (its label names that bucket) while its name belongs to
   * another bucket. Only the owner of the bucket its name belongs to may reconcile it, and that
   * owner's informers do not show it.
   */
  @FunctionalInterface
  public interface MisfiledListener {
    /**
     * @param labelled the bucket its label names
     * @param stillThere whether that bucket's informer here still holds it
     */
    void misfiled(WatchedKind<?, ?> kind, KubernetesObject object, int labelled, BooleanSupplier stillThere);
  }

  /** Buckets listed and watched together, by one informer per kind and namespace scope. */
  private static final class BucketGroup {
    final Set<Integer> selected;
    final Map<BucketViews<?>, BucketViews.Group<?>> byKind = new LinkedHashMap<>();
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

  private final Informers informers;
  private final int buckets;
  private final ExecutorService runners = Executors.newCachedThreadPool(Daemons.named("bucket-informer"));
  private final ScheduledExecutorService checks = Daemons.scheduler("bucket-informer-sync");
  private final List<MisfiledListener> misfiled = new CopyOnWriteArrayList<>();
  /** Each kind's view of the buckets, made on first use. */
  private final Map<WatchedKind<?, ?>, BucketViews<?>> views = new ConcurrentHashMap<>();
  /** When each bucket cached here began to be watched. */
  private final Map<Integer, OffsetDateTime> watchingSince = new ConcurrentHashMap<>();
  /** The group serving each bucket cached here (changed under this object's lock). */
  private final Map<Integer, BucketGroup> groupOf = new ConcurrentHashMap<>();

  /** For the kinds of {@code informers}, which select {@link #UNBUCKETED}; stops when they stop. */
  public BucketInformers(Informers informers, int buckets) {
    this.informers = informers;
    this.buckets = buckets;
    informers.onStop(this::stop);
  }

  /** {@code listener} is told of each misfiled object (see {@link MisfiledListener}). */
  public void onMisfiled(MisfiledListener listener) {
    misfiled.add(listener);
  }

  /**
   * The buckets whose informers are not running yet get them, one informer per kind and namespace
   * scope for all of them together; completes once every one of {@code buckets} has listed or been
   * let go meanwhile (the others' work must not wait for a bucket that will not list).
   */
  public synchronized CompletableFuture<Void> startBuckets(Set<Integer> buckets) {
    Set<Integer> fresh = new TreeSet<>(buckets);
    fresh.removeAll(groupOf.keySet());
    if (!fresh.isEmpty()) {
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      BucketGroup group = startGroup(fresh, false);
      fresh.forEach(bucket -> {
        groupOf.put(bucket, group);
        watchingSince.putIfAbsent(bucket, now);
      });
    }
    Set<Integer> awaited = Set.copyOf(buckets);
    return whenTrue(() -> awaited.stream().allMatch(bucket -> bucketSynced(bucket) || !groupOf.containsKey(bucket)));
  }

  private CompletableFuture<Void> whenTrue(BooleanSupplier condition) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    var check = checks.scheduleWithFixedDelay(() -> {
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
    String requirement = BucketHash.LABEL + " in ("
        + String.join(",", selected.stream().sorted().map(String::valueOf).toList()) + ")";
    informers.kinds().forEach((kind, informer) -> {
      BucketViews<?> kindViews = viewsOf(kind, informer);
      group.byKind.put(kindViews, startGroup(kind, kindViews, selected, requirement, shadowing));
    });
    return group;
  }

  @SuppressWarnings("unchecked")
  private <T extends KubernetesObject> BucketViews<T> viewsOf(WatchedKind<?, ?> kind, KindInformer<?> informer) {
    return (BucketViews<T>) views.computeIfAbsent(kind, k -> {
      KindInformer<T> typed = (KindInformer<T>) informer;
      BucketViews<T> created = new BucketViews<>(buckets, typed.handlers(),
          (object, labelled, stillThere) -> misfiled.forEach(l -> l.misfiled(kind, object, labelled, stillThere)),
          watchingSince::get);
      typed.extend(created);
      return created;
    });
  }

  @SuppressWarnings("unchecked")
  private <T extends KubernetesObject, L extends KubernetesListObject> BucketViews.Group<?> startGroup(
      WatchedKind<?, ?> watched, BucketViews<?> kindViews, Set<Integer> selected, String requirement,
      boolean shadowing) {
    WatchedKind<T, L> kind = (WatchedKind<T, L>) watched;
    BucketViews<T> typedViews = (BucketViews<T>) kindViews;
    Map<String, SharedIndexInformer<T>> byScope = informers.newInformers(kind, requirement, "buckets " + selected);
    BucketViews.Group<T> group = shadowing ? typedViews.shadow(byScope) : typedViews.serve(selected, byScope);
    byScope.values().forEach(informer -> runners.submit(informer::run));
    return group;
  }

  /**
   * The buckets each group of bucket informers lists and watches, those serving first, then any
   * replacement still listing; a bucket a group watches but no longer serves is in brackets.
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

  /** The informers of {@code bucket} no longer show it; its objects leave the caches. */
  public synchronized void stopBucket(int bucket) {
    watchingSince.remove(bucket);
    BucketGroup group = groupOf.remove(bucket);
    if (group == null) {
      return;
    }
    views.values().forEach(kindViews -> kindViews.letGo(bucket));
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
    group.compaction = checks.schedule(() -> compact(group), COMPACTION_DELAY.toMillis(), TimeUnit.MILLISECONDS);
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
    replacement.byKind.forEach((kindViews, views) -> takeOver(kindViews, views, moving));
    moving.forEach(bucket -> groupOf.put(bucket, replacement));
    if (serving(group).isEmpty()) {
      group.stop();
    }
    if (!serving(replacement).equals(replacement.selected)) {
      compactLater(replacement);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends KubernetesObject> void takeOver(BucketViews<?> kindViews, BucketViews.Group<?> group,
      Set<Integer> moving) {
    ((BucketViews<T>) kindViews).takeOver((BucketViews.Group<T>) group, moving);
  }

  /** Whether every kind's informers of {@code bucket} have completed their first list. */
  public boolean bucketSynced(int bucket) {
    return informers.kinds().keySet().stream().allMatch(kind -> {
      BucketViews<?> kindViews = views.get(kind);
      return kindViews != null && kindViews.synced(bucket);
    });
  }

  private synchronized void stop() {
    Set.copyOf(groupOf.values()).forEach(BucketGroup::stop);
    runners.shutdownNow();
    checks.shutdownNow();
  }
}
