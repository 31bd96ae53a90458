package io.steward.operator.support;

import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.testing.cluster.AuditLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Judges sharded mode from the API server's audit log, not from the operators' reports. The bucket
 * Leases' writes (with the holder each names, logged with their body) give each replica's ownership
 * terms per bucket: a term runs from a successful Lease write naming the replica until the next
 * successful write of that Lease, and at most a lease duration past the last one (after that the
 * Lease has expired and another replica may take it). Every successful write a replica makes to a
 * WebApp, its status, a Deployment or a Service must fall inside that replica's term of the
 * object's bucket; anything else is an overlapping write.
 */
public final class BucketAudit {
  private static final Set<String> OWNED = Set.of("webapps", "deployments", "services");
  private static final String BUCKET_LEASE = "steward-bucket-";
  private static final String LEADER_LEASE = "steward-leader";

  /** A successful write of a bucket Lease: by whom, naming whom (empty: a release). */
  public record LeaseWrite(Instant at, int bucket, String writer, String holder) {}

  private final List<AuditLog.Entry> entries;
  private final String namespace;
  private final String leaseNamespace;
  private final int buckets;
  private final Duration leaseDuration;
  private final Map<Integer, List<LeaseWrite>> leaseWrites = new HashMap<>();
  private final List<LeaseWrite> leaderLeaseWrites = new ArrayList<>();

  public BucketAudit(AuditLog log, String namespace, String leaseNamespace, int buckets, Duration leaseDuration) {
    this.entries = log.entries(e -> e.fromUserAgentStartingWith("steward/") && e.mutating()
            && e.code() >= 200 && e.code() < 300).stream()
        .sorted(Comparator.comparing(AuditLog.Entry::received)).toList();
    this.namespace = namespace;
    this.leaseNamespace = leaseNamespace;
    this.buckets = buckets;
    this.leaseDuration = leaseDuration;
    for (AuditLog.Entry e : entries) {
      if ("leases".equals(e.resource()) && leaseNamespace.equals(e.namespace()) && e.name().startsWith(BUCKET_LEASE)) {
        int bucket = Integer.parseInt(e.name().substring(BUCKET_LEASE.length()));
        leaseWrites.computeIfAbsent(bucket, b -> new ArrayList<>())
            .add(new LeaseWrite(e.received(), bucket, identity(e.userAgent()), e.leaseHolder()));
      } else if ("leases".equals(e.resource()) && leaseNamespace.equals(e.namespace()) && LEADER_LEASE.equals(e.name())) {
        leaderLeaseWrites.add(new LeaseWrite(e.received(), -1, identity(e.userAgent()), e.leaseHolder()));
      }
    }
  }

  private static String identity(String userAgent) {
    return userAgent.substring("steward/".length());
  }

  public int bucketOf(String name) {
    return BucketHash.bucketOf(namespace, name, buckets);
  }

  /** Successful writes to WebApps, Deployments and Services of the namespace, oldest first. */
  public List<AuditLog.Entry> objectWrites() {
    return entries.stream().filter(e -> OWNED.contains(e.resource()) && namespace.equals(e.namespace())).toList();
  }

  /** Who held {@code bucket} at {@code at} by the Lease writes: empty when no one (released, expired, never taken). */
  public String holderAt(int bucket, Instant at) {
    return holderAt(leaseWrites.getOrDefault(bucket, List.of()), at);
  }

  /** Who held the leader mode's Lease at {@code at}, judged as a bucket's. */
  public String leaderAt(Instant at) {
    return holderAt(leaderLeaseWrites, at);
  }

  /** The index of the last of {@code writes} received at or before {@code at}; -1 if none was. */
  private static int lastAtOrBefore(List<LeaseWrite> writes, Instant at) {
    int last = -1;
    for (int i = 0; i < writes.size() && !writes.get(i).at().isAfter(at); i++) {
      last = i;
    }
    return last;
  }

  private String holderAt(List<LeaseWrite> writes, Instant at) {
    return holderAt(writes, lastAtOrBefore(writes, at), at);
  }

  /** Who held the Lease at {@code at}, by {@code writes}' last write then, at {@code index} (-1: none). */
  private String holderAt(List<LeaseWrite> writes, int index, Instant at) {
    LeaseWrite last = index < 0 ? null : writes.get(index);
    if (last == null || last.holder().isEmpty() || Duration.between(last.at(), at).compareTo(leaseDuration) > 0) {
      return "";
    }
    return last.holder();
  }

  /** Writes that lie outside their writer's term of the object's bucket. */
  public List<AuditLog.Entry> writesOutsideTheirTerm() {
    return writesOutsideTheirTerm(Instant.MIN);
  }

  /**
   * Writes by a replica that was not the object's one writer then: either the leader while no bucket
   * Lease of the object's bucket was held, or the bucket's holder while no leader held its Lease.
   */
  public List<AuditLog.Entry> writesBesideTheOtherMode() {
    List<AuditLog.Entry> violations = new ArrayList<>();
    for (AuditLog.Entry e : objectWrites()) {
      String writer = identity(e.userAgent());
      String leader = leaderAt(e.received());
      String bucketHolder = e.name().isEmpty() ? "" : holderWithTermAt(bucketOf(e.name()), e.received());
      boolean asLeader = writer.equals(leader) && bucketHolder.isEmpty();
      boolean asBucketHolder = writer.equals(bucketHolder) && leader.isEmpty();
      if (!asLeader && !asBucketHolder) {
        violations.add(e);
      }
    }
    return violations;
  }

  /**
   * The bucket's holder at {@code at} as {@link #holderAt} reads it, except for a take its holder gave
   * back unused. A sharded replica and a leader-mode replica can take their Leases at the same moment
   * (each read the other's as free); the sharded one reads the leader Lease again after its takes and,
   * finding it held, empties the bucket Leases it took without starting their terms, so it writes
   * nothing in them. Such a take is one the same replica emptied next, while a leader held the leader
   * Lease, with no object write of its own in that bucket in between: with one, it stands as a term.
   */
  private String holderWithTermAt(int bucket, Instant at) {
    List<LeaseWrite> writes = leaseWrites.getOrDefault(bucket, List.of());
    int last = lastAtOrBefore(writes, at);
    String holder = holderAt(writes, last, at);
    if (holder.isEmpty() || last < 0 || last + 1 >= writes.size()) {
      return holder;
    }
    LeaseWrite take = writes.get(last);
    LeaseWrite next = writes.get(last + 1);
    boolean aTake = last == 0 || !writes.get(last - 1).holder().equals(holder);
    boolean givenBack = take.writer().equals(holder) && next.writer().equals(holder) && next.holder().isEmpty();
    String leader = leaderAt(next.at());
    boolean toALeader = !leader.isEmpty() && !leader.equals(holder);
    if (!aTake || !givenBack || !toALeader) {
      return holder;
    }
    boolean unused = objectWrites().stream().noneMatch(e -> identity(e.userAgent()).equals(holder)
        && bucketOf(e.name()) == bucket && !e.received().isBefore(take.at()) && !e.received().isAfter(next.at()));
    return unused ? "" : holder;
  }

  /** Writes since {@code from} that lie outside their writer's term of the object's bucket. */
  public List<AuditLog.Entry> writesOutsideTheirTerm(Instant from) {
    List<AuditLog.Entry> violations = new ArrayList<>();
    for (AuditLog.Entry e : objectWrites()) {
      if (e.received().isBefore(from)) {
        continue;
      }
      if (e.name().isEmpty() || !holderAt(bucketOf(e.name()), e.received()).equals(identity(e.userAgent()))) {
        violations.add(e);
      }
    }
    return violations;
  }

  /** Object writes by {@code identity} since {@code from}, oldest first. */
  public List<AuditLog.Entry> writesBy(String identity, Instant from) {
    return objectWrites().stream().filter(e -> identity(e.userAgent()).equals(identity) && !e.received().isBefore(from))
        .toList();
  }

  /** The first successful write of {@code bucket}'s Lease naming someone other than {@code previous}, after {@code from}. */
  public Optional<LeaseWrite> takeover(int bucket, String previous, Instant from) {
    return leaseWrites.getOrDefault(bucket, List.of()).stream()
        .filter(w -> !w.at().isBefore(from) && !w.holder().isEmpty() && !w.holder().equals(previous)).findFirst();
  }

  /** The first successful object write in {@code bucket} by {@code identity} after {@code from}. */
  public Optional<AuditLog.Entry> firstWrite(int bucket, String identity, Instant from) {
    return writesBy(identity, from).stream().filter(e -> bucketOf(e.name()) == bucket).findFirst();
  }

  public List<LeaseWrite> leaseWrites(int bucket) {
    return leaseWrites.getOrDefault(bucket, List.of());
  }
}
