package io.steward.operator.runtime.sharding;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.runtime.election.LeaseExpiry;
import io.steward.operator.runtime.election.LeaseTerm;
import io.steward.operator.runtime.election.Leases;
import io.steward.operator.runtime.election.RivalLeases;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.support.Daemons;
import io.steward.operator.runtime.support.LogSafe;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded mode: which buckets this replica owns, kept in a Lease per bucket
 * ({@code steward-bucket-<n>}). Every retry period (and as soon as another replica's Lease expires)
 * a round lists the shard Leases, renews this replica's membership ({@link ShardMembership}), assigns
 * the buckets over the live members ({@link BucketAssignment}) and, for each bucket: takes it when this
 * replica is its desired owner and its Lease is free; renews it once half its term has passed
 * ({@link #renewalDue}); or hands it over, ending its term and awaiting the writes already sent before
 * the Lease is released, naming the replica it is released for ({@link #RELEASED_FOR}). Each owned
 * bucket has its own {@link LeaseTerm}. Losing a bucket stops only its work. Lease writes of a round
 * go out side by side ({@link #LEASE_WRITERS}); a watch ({@link ShardLeaseWatch}) sees renewals
 * between rounds. The protocol and why it is safe: docs/sharding.md.
 */
public final class BucketOwnership implements BucketGate.OwnedBuckets {
  private static final Logger log = LoggerFactory.getLogger(BucketOwnership.class);
  static final String BUCKET_PREFIX = "steward-bucket-";
  /**
   * Periodic rounds of membership only after start, so that replicas starting together see each other
   * before taking free buckets; a bucket released for this replica is taken sooner.
   */
  static final int ROUNDS_BEFORE_TAKING = 2;
  /**
   * Annotation of a released bucket Lease: the replica its last holder released it for, which was
   * live then and is the bucket's owner in the holder's view of the members.
   */
  public static final String RELEASED_FOR = "steward.io/released-for";
  static final int LEASE_WRITERS = 8;

  /** What a move of a bucket is, for logs, Events and metrics. */
  public enum Move { ACQUIRED, RELEASED, LOST }

  /** Told of every move of one of this replica's buckets, on the ownership thread. */
  public interface Listener {
    void moved(int bucket, Move move, String detail);

    /**
     * Every round: the buckets this replica expects to take next, which another replica still holds
     * (see {@link BucketOwnership#nextToTake}). Their caches can list before they are taken.
     */
    default void expecting(Set<Integer> buckets) {}

    /** After the {@link #moved} of each: the buckets this replica took in one round. */
    default void acquired(Set<Integer> buckets) {}
  }

  /** A bucket Lease this round wrote naming this replica, whose term waits for the leader check. */
  private record Taken(int bucket, LeaseTerm term, long sentAt, V1Lease written, String from) {}

  private final CoordinationV1Api leases;
  private final String namespace;
  private final String identity;
  private final BucketTerms terms;
  private final WriteFence fence;
  private final Duration leaseDuration;
  private final Duration retryPeriod;
  private final boolean localGuard;
  private final BooleanSupplier ready;
  private final RivalLeases leaderLease;
  private final Listener listener;
  private final ScheduledExecutorService thread;
  private final ExecutorService leaseWriters =
      Executors.newFixedThreadPool(LEASE_WRITERS, Daemons.named("bucket-lease-writer"));
  /** Takes have writers of their own: they must not queue behind renewals still under way. */
  private final ExecutorService takeWriters =
      Executors.newFixedThreadPool(LEASE_WRITERS, Daemons.named("bucket-lease-taker"));
  private final AtomicIntegerArray owned;
  /** 1 while a renewal or release of the bucket's Lease is under way: rounds leave the bucket alone. */
  private final AtomicIntegerArray writing;
  /**
   * When the last renewal or release of the bucket's Lease ended, by the monotonic clock: a round
   * whose list was sent before then holds an older version of the Lease, and a write with it would
   * fail on its version (a release refused that way leaves the bucket to expire).
   */
  private final AtomicLongArray writeEndedAt;
  private final LeaseExpiry expiry;
  private final Map<String, Counter> moves = new HashMap<>();
  private final ShardMembership membership;
  private final AtomicBoolean earlyRoundPending = new AtomicBoolean();
  private ShardLeaseWatch watch;
  private volatile Map<Integer, String> assignment = Map.of();
  private volatile Map<Integer, String> holders = Map.of();
  private volatile List<String> liveMembers = List.of();
  private volatile boolean stopped;
  private volatile int periodicRounds;
  /** Leases other replicas hold, as the last round read them: the next round comes when the first expires. */
  private List<String> heldByOthers = List.of();
  private String yieldingTo = "";

  /**
   * @param localGuard false only in tests: then {@link #accepts} ignores whether the bucket's term is
   *     still valid, as a sharded operator without the term guard would
   * @param ready whether this replica can serve buckets (its caches have synced); it takes none before
   * @param leaderLease the leader mode's Lease: while a leader holds it, this replica holds no bucket
   */
  public BucketOwnership(CoordinationV1Api leases, String namespace, String identity, BucketTerms terms,
      WriteFence fence, Duration leaseDuration, Duration retryPeriod, boolean localGuard, BooleanSupplier ready,
      RivalLeases leaderLease, MeterRegistry registry, Listener listener) {
    this.leases = leases;
    this.namespace = namespace;
    this.identity = identity;
    this.terms = terms;
    this.fence = fence;
    this.leaseDuration = leaseDuration;
    this.retryPeriod = retryPeriod;
    this.localGuard = localGuard;
    this.ready = ready;
    this.leaderLease = leaderLease;
    this.listener = listener;
    this.owned = new AtomicIntegerArray(terms.buckets());
    this.writing = new AtomicIntegerArray(terms.buckets());
    ScheduledThreadPoolExecutor rounds = new ScheduledThreadPoolExecutor(1, Daemons.named("bucket-ownership"));
    // A stop must not wait for the next round to come due.
    rounds.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.thread = rounds;
    this.expiry = new LeaseExpiry(leaseDuration, System::nanoTime);
    this.membership = new ShardMembership(leases, namespace, identity, expiry, terms.termLength(), leaseDuration);
    this.writeEndedAt = new AtomicLongArray(terms.buckets());
    long start = expiry.now(); // before any round's read: no bucket skipped for it
    for (int bucket = 0; bucket < terms.buckets(); bucket++) {
      writeEndedAt.set(bucket, start);
      int b = bucket;
      Gauge.builder("steward_shard_bucket_owned", () -> owned.get(b))
          .description("1 while this replica owns the bucket").tag("bucket", Integer.toString(b)).register(registry);
    }
    Gauge.builder("steward_shard_buckets_owned", this, o -> o.owned().size())
        .description("Buckets this replica owns").register(registry);
    Gauge.builder("steward_shard_members_live", this, o -> o.liveMembers.size())
        .description("Replicas this replica sees live").register(registry);
    for (Move move : Move.values()) {
      moves.put(move.name(), Counter.builder("steward_shard_bucket_moves").tag("move", move.name().toLowerCase())
          .description("Buckets this replica took, released or lost").register(registry));
    }
  }

  /** Sees the Leases change on a watch through {@code watches} too (see {@link ShardLeaseWatch}). */
  public BucketOwnership watchingLeases(ApiClient watches) {
    this.watch = new ShardLeaseWatch(watches, namespace, this);
    return this;
  }

  public void start() {
    if (watch != null) {
      watch.start();
    }
    thread.execute(this::roundThenNext);
  }

  /**
   * Rounds come every retry period, and also as soon as another replica's Lease expires: a replica
   * that died is then taken over when its Leases run out, not up to a retry period later.
   */
  private void roundThenNext() {
    long began = expiry.now();
    periodicRounds++;
    round();
    try {
      thread.schedule(this::roundThenNext,
          nextRoundIn(retryPeriod, expiry.now() - began, expiry.nanosUntilFirstExpiry(heldByOthers)),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // Stopping: no more rounds.
    }
  }

  /**
   * A round now, besides the periodic ones, for a change that should not wait for the next one (a
   * bucket released by its holder). Requests made while one is pending share it; none before this
   * replica's first round has announced it. It does not count among the periodic rounds that must
   * pass before this replica takes buckets that were not released for it.
   */
  public void roundSoon() {
    if (stopped || periodicRounds < 1 || !earlyRoundPending.compareAndSet(false, true)) {
      return;
    }
    try {
      thread.execute(() -> {
        earlyRoundPending.set(false);
        round();
      });
    } catch (RejectedExecutionException e) {
      // Stopping.
    }
  }

  /**
   * A Lease as a watch event delivered it: a sighting of its state made now, after the write that
   * produced it was committed, so at least as late as any read could have made it.
   */
  public void sawOnWatch(V1Lease lease) {
    if (lease.getMetadata() != null && lease.getMetadata().getName() != null) {
      expiry.saw(lease.getMetadata().getName(), lease.getMetadata().getResourceVersion(), expiry.now());
    }
  }

  /**
   * Nanoseconds to the next round: a retry period after the last one began, or less when another
   * replica's Lease expires sooner ({@code untilExpiry}), just past that instant. Counted from the
   * round's start, so that a round slowed by a busy API server does not push every later one back
   * (a joining replica takes nothing before its third round); a round that took longer than the
   * period is followed by a quarter of one, so rounds never come more often than once a period.
   */
  static long nextRoundIn(Duration retryPeriod, long roundTook, OptionalLong untilExpiry) {
    long period = retryPeriod.toNanos();
    long wait = Math.max(period - roundTook, period / 4);
    if (untilExpiry.isPresent()) {
      wait = Math.min(wait, untilExpiry.getAsLong() + LeaseExpiry.LOOK_PAST.toNanos());
    }
    return wait;
  }

  public String identity() {
    return identity;
  }

  /** The periodic rounds this replica has begun. */
  int periodicRounds() {
    return periodicRounds;
  }

  public int buckets() {
    return terms.buckets();
  }

  /** Whether {@code bucket} is this replica's, whether or not its term is valid right now. */
  @Override
  public boolean owns(int bucket) {
    return owned.get(bucket) == 1;
  }

  /** Whether a pass for {@code bucket} may start here now: the bucket is this replica's and its term valid. */
  @Override
  public boolean accepts(int bucket) {
    return owned.get(bucket) == 1 && (!localGuard || terms.term(bucket).isValid());
  }

  public List<Integer> owned() {
    List<Integer> result = new ArrayList<>();
    for (int bucket = 0; bucket < owned.length(); bucket++) {
      if (owned.get(bucket) == 1) {
        result.add(bucket);
      }
    }
    return result;
  }

  /** bucket → the live member that should own it, as this replica computed it last. */
  public Map<Integer, String> assignment() {
    return assignment;
  }

  /** bucket → holder of its Lease as last read (empty when released or absent). */
  public Map<Integer, String> holders() {
    return holders;
  }

  public List<String> liveMembers() {
    return liveMembers;
  }

  public boolean isAlive() {
    return stopped || !thread.isShutdown();
  }

  static String bucketLease(int bucket) {
    return BUCKET_PREFIX + bucket;
  }

  private void round() {
    if (stopped) {
      return;
    }
    try {
      long readAt = expiry.now();
      List<V1Lease> listed = leases.listNamespacedLease(namespace).labelSelector(Leases.SHARD_LEASE_LABEL).execute().getItems();
      long answeredAt = expiry.now();
      Map<String, V1Lease> byName = new HashMap<>();
      for (V1Lease lease : listed) {
        byName.put(lease.getMetadata().getName(), lease);
        expiry.saw(lease.getMetadata().getName(), lease.getMetadata().getResourceVersion(), answeredAt);
      }
      expiry.keepOnly(byName.keySet());
      heldByOthers = byName.entrySet().stream()
          .filter(e -> !Leases.holder(e.getValue()).isEmpty() && !identity.equals(Leases.holder(e.getValue())))
          .map(Map.Entry::getKey).toList();
      membership.renew(byName);
      // Read after the bucket Leases: a leader that took its Lease before this read sees, if it
      // re-reads the buckets, whatever this round takes.
      RivalLeases.Reading leader = leaderLease.read();
      yieldTo(leader);
      List<String> live = membership.live(byName);
      membership.emptyExpired(byName);
      liveMembers = live;
      Map<Integer, String> desired = BucketAssignment.assign(terms.buckets(), live);
      assignment = desired;
      Map<Integer, String> seenHolders = new TreeMap<>();
      boolean seenPeers = periodicRounds > ROUNDS_BEFORE_TAKING;
      boolean mayTake = ready.getAsBoolean() && !leader.anyHeld();
      List<Callable<Taken>> takes = new ArrayList<>();
      for (int bucket = 0; bucket < terms.buckets(); bucket++) {
        int b = bucket;
        V1Lease lease = byName.get(bucketLease(bucket));
        String holder = Leases.holder(lease);
        seenHolders.put(bucket, holder);
        String wanted = desired.get(bucket);
        if (writing.get(bucket) == 1 || writeEndedAt.get(bucket) - readAt > 0) {
          continue; // the last round's write of it is under way or ended after this round's read
        }
        if (owned.get(bucket) == 1) {
          if (keeping(b, holder, wanted, leader) != Keeping.KEEP) {
            // Not awaited: the round ends without them, so that the next one, due when another
            // replica's Lease expires, is not held up by renewals on a slow API server.
            renewOrLet(b, () -> keepOrLet(b, lease, holder, wanted, leader));
          }
        } else if (mayTake && identity.equals(wanted)
            && (seenPeers ? isFree(lease, holder) : releasedFor(identity, lease, holder))) {
          takes.add(() -> take(b, lease, holder));
        }
      }
      holders = seenHolders;
      expect(leader.anyHeld() ? Set.of() : nextToTake(seenHolders, live, desired));
      List<Taken> taken = new ArrayList<>();
      for (Future<Taken> done : takeWriters.invokeAll(takes)) {
        try {
          Taken written = done.get();
          if (written != null) {
            taken.add(written);
          }
        } catch (ExecutionException e) {
          log.warn("Bucket Lease write failed: {}", LogSafe.describe(e.getCause()));
        }
      }
      if (!taken.isEmpty()) {
        grantOrGiveBack(taken, leader);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ApiException e) {
      log.debug("Shard Leases not readable now (HTTP {}); terms run out unless the next round renews them",
          e.getCode());
    } catch (RuntimeException e) {
      log.warn("Bucket ownership round failed: {}", LogSafe.describe(e));
    }
  }

  /** Runs a renewal or release of {@code bucket}'s Lease on a writer, marking the bucket as being written. */
  private void renewOrLet(int bucket, Runnable write) {
    writing.set(bucket, 1);
    try {
      leaseWriters.execute(() -> {
        try {
          write.run();
        } catch (RuntimeException e) {
          log.warn("Bucket Lease write failed: {}", LogSafe.describe(e));
        } finally {
          writeEndedAt.set(bucket, expiry.now());
          writing.set(bucket, 0);
        }
      });
    } catch (RejectedExecutionException e) {
      writing.set(bucket, 0); // stopping
    }
  }

  /** Listing ahead only saves time: should it fail, the round takes what it should all the same. */
  private void expect(Set<Integer> buckets) {
    try {
      listener.expecting(buckets);
    } catch (RuntimeException e) {
      log.warn("Buckets {} not listed ahead: {}", buckets, LogSafe.describe(e));
    }
  }

  private Set<Integer> nextToTake(Map<Integer, String> holders, List<String> live, Map<Integer, String> desired) {
    Duration silence = terms.termLength().dividedBy(2).plus(retryPeriod.multipliedBy(2));
    return nextToTake(identity, terms.buckets(), holders, this::owns, desired, live,
        bucket -> expiry.unchangedFor(bucketLease(bucket), silence));
  }

  /**
   * The buckets another replica holds that {@code identity} expects to take: those assigned to it
   * ({@code desired}; their holder releases them at its next round), and those a silent holder would
   * leave to it (the assignment over {@code live} without that holder) once its Lease expires.
   *
   * @param silent whether a bucket's Lease has gone unchanged for long enough to doubt its holder:
   *     half a term and two retry periods, in which a live holder would have renewed it
   *     ({@link #renewalDue}) and the renewal would have arrived
   */
  static Set<Integer> nextToTake(String identity, int buckets, Map<Integer, String> holders, IntPredicate owned,
      Map<Integer, String> desired, List<String> live, IntPredicate silent) {
    Set<Integer> next = new TreeSet<>();
    Map<String, Map<Integer, String>> withoutHolder = new HashMap<>();
    for (int bucket = 0; bucket < buckets; bucket++) {
      String holder = holders.getOrDefault(bucket, "");
      if (holder.isEmpty() || holder.equals(identity) || owned.test(bucket)) {
        continue;
      }
      if (identity.equals(desired.get(bucket))) {
        next.add(bucket);
      } else if (silent.test(bucket)) {
        Map<Integer, String> heirs = withoutHolder.computeIfAbsent(holder,
            h -> BucketAssignment.assign(buckets, live.stream().filter(m -> !m.equals(h)).toList()));
        if (identity.equals(heirs.get(bucket))) {
          next.add(bucket);
        }
      }
    }
    return next;
  }

  /** Whether the Lease's last holder released it for {@code replica}. */
  static boolean releasedFor(String replica, V1Lease lease, String holder) {
    return lease != null && holder.isEmpty() && lease.getMetadata().getAnnotations() != null
        && replica.equals(lease.getMetadata().getAnnotations().get(RELEASED_FOR));
  }

  /** Names {@code replica} as the one the Lease is released for; null names no one. */
  private static void markReleasedFor(V1Lease lease, String replica) {
    if (replica != null) {
      lease.getMetadata().putAnnotationsItem(RELEASED_FOR, replica);
    } else if (lease.getMetadata().getAnnotations() != null) {
      lease.getMetadata().getAnnotations().remove(RELEASED_FOR);
    }
  }

  private boolean isFree(V1Lease lease, String holder) {
    return lease == null || holder.isEmpty() || holder.equals(identity)
        || expiry.expired(lease.getMetadata().getName());
  }

  /** What a round does with a bucket this replica owns. */
  private enum Keeping { LOST_TO_ANOTHER, RELEASE_FOR_LEADER, LAPSED, RELEASE, RENEW, KEEP }

  private Keeping keeping(int bucket, String holder, String wanted, RivalLeases.Reading leader) {
    LeaseTerm term = terms.term(bucket);
    if (!identity.equals(holder)) {
      return Keeping.LOST_TO_ANOTHER;
    } else if (leader.anyHeld()) {
      return Keeping.RELEASE_FOR_LEADER;
    } else if (localGuard && !term.isValid()) {
      return Keeping.LAPSED;
    } else if (!identity.equals(wanted)) {
      return Keeping.RELEASE;
    }
    return renewalDue(term.remaining(), term.length()) ? Keeping.RENEW : Keeping.KEEP;
  }

  /**
   * Whether a Lease is due to be written again: once half the term its last write granted has
   * passed, as a DHCP client renews at half its lease. The half left leaves room for retries a round
   * apart should a renewal fail; writing every round instead would cost each bucket a write per retry
   * period, most of sharded mode's requests at rest.
   */
  static boolean renewalDue(Duration remaining, Duration termLength) {
    return remaining.compareTo(termLength.dividedBy(2)) <= 0;
  }

  /**
   * A bucket this replica owns: renew it, hand it over (to the replica the assignment wants, or to a
   * leader that holds the leader Lease), or notice it is gone.
   */
  private void keepOrLet(int bucket, V1Lease lease, String holder, String wanted, RivalLeases.Reading leader) {
    LeaseTerm term = terms.term(bucket);
    // Judged again on the writer: the term may have run out since the round looked.
    Keeping keeping = keeping(bucket, holder, wanted, leader);
    if (keeping == Keeping.KEEP) {
      return;
    } else if (keeping == Keeping.LOST_TO_ANOTHER) {
      // Whatever else holds: a release would carry the version of the other holder's take.
      lose(bucket, term, holder.isEmpty() ? "its Lease was released or deleted" : "taken by " + holder);
    } else if (keeping == Keeping.RELEASE_FOR_LEADER) {
      release(bucket, term, lease, null, "for the leader " + leader.describeHeld());
    } else if (keeping == Keeping.LAPSED) {
      // Lapsed (a pause, a slow API server): the gate has been dropping the bucket's requests. Lost
      // now and, if the Lease is still ours, taken again next round, which queues the bucket anew.
      lose(bucket, term, "its term ran out before a renewal succeeded");
    } else if (keeping == Keeping.RELEASE) {
      release(bucket, term, lease, wanted, "for " + wanted);
    } else {
      long sentAt = term.now();
      lease.getSpec().renewTime(now());
      try {
        leases.replaceNamespacedLease(lease.getMetadata().getName(), namespace, lease).execute();
        term.renewed(sentAt);
      } catch (ApiException e) {
        log.debug("Bucket {} not renewed (HTTP {})", bucket, e.getCode());
      }
    }
  }

  /** Writes the bucket's Lease naming this replica; the term is granted only once the leader check passed. */
  private Taken take(int bucket, V1Lease lease, String holder) {
    String from = releasedFor(identity, lease, holder) ? "released for this replica" : holder.isEmpty() ? "free"
        : holder.equals(identity) ? "this replica's own Lease" : "from " + holder + ", whose Lease expired";
    LeaseTerm term = terms.termToGrant(bucket);
    long sentAt = term.now();
    V1Lease written;
    try {
      if (lease == null) {
        written = leases.createNamespacedLease(namespace,
            ShardLeases.newLease(bucketLease(bucket), namespace, identity, "bucket", bucket, leaseDuration)).execute();
      } else {
        V1LeaseSpec spec = lease.getSpec();
        markReleasedFor(lease, null);
        boolean transition = !identity.equals(holder);
        spec.holderIdentity(identity).acquireTime(now()).renewTime(now())
            .leaseDurationSeconds((int) leaseDuration.toSeconds())
            .leaseTransitions((spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions()) + (transition ? 1 : 0));
        written = leases.replaceNamespacedLease(lease.getMetadata().getName(), namespace, lease).execute();
      }
    } catch (ApiException e) {
      log.debug("Bucket {} not taken (HTTP {}): another replica was faster", bucket, e.getCode());
      return null;
    }
    return new Taken(bucket, term, sentAt, written, from);
  }

  /**
   * The second read of the leader Lease: if a leader took it while these buckets were being taken,
   * they are given back unused; otherwise their terms start, from each write's send instant.
   */
  private void grantOrGiveBack(List<Taken> taken, RivalLeases.Reading before) throws ApiException {
    RivalLeases.Reading after = leaderLease.read();
    if (after.takenSince(before)) {
      log.warn("A leader took {} while this replica took buckets {}; giving them back", after.describeHeld(),
          taken.stream().map(Taken::bucket).toList());
      for (Taken t : taken) {
        t.written().getSpec().holderIdentity("").renewTime(now());
        try {
          leases.replaceNamespacedLease(t.written().getMetadata().getName(), namespace, t.written()).execute();
        } catch (ApiException e) {
          log.debug("Bucket {} not given back (HTTP {}); it expires", t.bucket(), e.getCode());
        }
      }
      return;
    }
    for (Taken t : taken) {
      t.term().renewed(t.sentAt());
      owned.set(t.bucket(), 1);
      moved(t.bucket(), Move.ACQUIRED, t.from());
    }
    try {
      listener.acquired(taken.stream().map(Taken::bucket).collect(Collectors.toCollection(TreeSet::new)));
    } catch (RuntimeException e) {
      log.warn("Buckets {} taken, but their work not queued: {}", taken.stream().map(Taken::bucket).toList(),
          LogSafe.describe(e));
    }
  }

  /** Logs once when a leader appears or goes: while one holds its Lease, no bucket is held here. */
  private void yieldTo(RivalLeases.Reading leader) {
    String now = leader.anyHeld() ? leader.describeHeld() : "";
    if (!now.equals(yieldingTo)) {
      yieldingTo = now;
      if (now.isEmpty()) {
        log.info("No leader holds the leader Lease any more; taking buckets again");
      } else {
        log.warn("A leader-mode replica holds {}: this replica holds no bucket while it does (a switch between "
            + "modes in progress?)", now);
      }
    }
  }

  private void lose(int bucket, LeaseTerm term, String why) {
    owned.set(bucket, 0);
    term.end();
    moved(bucket, Move.LOST, why);
  }

  /**
   * Stop taking the bucket's work, end its term (what is still running is refused at its next write),
   * wait for the writes already sent, then empty the Lease's holder. Left to expire instead when the
   * writes are not answered in time: then nothing is released while something may still land. The
   * Lease names {@code forReplica} (null: no replica) as the one it is released for.
   */
  private void release(int bucket, LeaseTerm term, V1Lease lease, String forReplica, String detail) {
    owned.set(bucket, 0);
    term.end();
    try {
      if (!fence.awaitWritesAnswered(term, retryPeriod)) {
        moved(bucket, Move.RELEASED, detail + ", left to expire: writes still unanswered");
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    lease.getSpec().holderIdentity("").renewTime(now());
    markReleasedFor(lease, forReplica);
    try {
      leases.replaceNamespacedLease(lease.getMetadata().getName(), namespace, lease).execute();
      moved(bucket, Move.RELEASED, detail);
    } catch (ApiException e) {
      moved(bucket, Move.RELEASED, detail + ", left to expire: the release failed (HTTP " + e.getCode() + ")");
    }
  }

  private void moved(int bucket, Move move, String detail) {
    moves.get(move.name()).increment();
    log.info("Bucket {} {} by {} ({})", bucket, move.name().toLowerCase(), identity, detail);
    try {
      listener.moved(bucket, move, detail);
    } catch (RuntimeException e) {
      log.warn("Bucket {} move not fully reported: {}", bucket, LogSafe.describe(e));
    }
  }

  /**
   * Graceful stop: every bucket is released as in a hand-over (work refused, terms ended, writes
   * awaited), then the member Lease, so the others re-assign at their next round instead of after
   * a lease duration.
   */
  public void stop(Duration timeout) {
    stopped = true;
    if (watch != null) {
      watch.stop();
    }
    thread.shutdown();
    leaseWriters.shutdown();
    takeWriters.shutdown();
    try {
      thread.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
      // A renewal still under way would make the release below fail on its version.
      leaseWriters.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<Integer> mine = owned();
    mine.forEach(bucket -> {
      owned.set(bucket, 0);
      terms.term(bucket).end();
    });
    try {
      if (!fence.awaitWritesAnswered(timeout)) {
        log.warn("Writes still unanswered after {}; leaving the bucket Leases to expire", timeout);
        return;
      }
      for (V1Lease lease : leases.listNamespacedLease(namespace).labelSelector(Leases.SHARD_LEASE_LABEL).execute().getItems()) {
        String name = lease.getMetadata().getName();
        boolean myBucket = name.startsWith(BUCKET_PREFIX) && identity.equals(Leases.holder(lease));
        if (myBucket || name.equals(membership.leaseName())) {
          lease.getSpec().holderIdentity("").renewTime(now());
          leases.replaceNamespacedLease(name, namespace, lease).execute();
          if (myBucket) {
            moved(Integer.parseInt(name.substring(BUCKET_PREFIX.length())), Move.RELEASED, "shutting down");
          }
        }
      }
    } catch (ApiException e) {
      log.warn("Shard Leases not released (HTTP {}); they expire after {}", e.getCode(), leaseDuration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static OffsetDateTime now() {
    return ShardLeases.now();
  }
}
