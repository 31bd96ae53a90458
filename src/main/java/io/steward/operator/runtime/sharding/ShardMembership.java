package io.steward.operator.runtime.sharding;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.steward.operator.runtime.election.LeaseExpiry;
import io.steward.operator.runtime.election.Leases;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded mode's membership: every replica renews a member Lease of its own
 * ({@code steward-member-<identity>}), and a member is live while its record was seen changing within
 * a lease duration, judged by this replica's monotonic clock from the moment it saw the change, never
 * by the writer's timestamps. {@link BucketOwnership} runs it from its rounds, on the Leases each
 * round listed; the two share the sightings of those Leases.
 */
final class ShardMembership {
  private static final Logger log = LoggerFactory.getLogger(ShardMembership.class);
  static final String PREFIX = "steward-member-";

  private final CoordinationV1Api leases;
  private final String namespace;
  private final String identity;
  private final LeaseExpiry expiry;
  private final Duration termLength;
  private final Duration leaseDuration;
  /** When the last successful write of this replica's member Lease was sent, by the monotonic clock. */
  private OptionalLong writtenAt = OptionalLong.empty();

  ShardMembership(CoordinationV1Api leases, String namespace, String identity, LeaseExpiry expiry, Duration termLength,
      Duration leaseDuration) {
    this.leases = leases;
    this.namespace = namespace;
    this.identity = identity;
    this.expiry = expiry;
    this.termLength = termLength;
    this.leaseDuration = leaseDuration;
  }

  /** This replica's member Lease. */
  String leaseName() {
    return PREFIX + identity;
  }

  /**
   * Writes this replica's member Lease when it is absent, names no one (emptied after a pause, say)
   * or is due as a bucket's would be ({@link BucketOwnership#renewalDue}): the others count a member
   * live while its Lease changes within a lease duration, which is longer than a term.
   *
   * @param byName the shard Leases a round listed, by name
   */
  void renew(Map<String, V1Lease> byName) throws ApiException {
    V1Lease lease = byName.get(leaseName());
    String name = leaseName();
    long sentAt = expiry.now();
    if (lease == null) {
      leases.createNamespacedLease(namespace, ShardLeases.newLease(name, namespace, identity, "member", null,
          leaseDuration)).execute();
      writtenAt = OptionalLong.of(sentAt);
    } else if (!identity.equals(Leases.holder(lease)) || writtenAt.isEmpty() || BucketOwnership.renewalDue(
        termLength.minus(Duration.ofNanos(sentAt - writtenAt.getAsLong())), termLength)) {
      lease.getSpec().holderIdentity(identity).renewTime(ShardLeases.now())
          .leaseDurationSeconds((int) leaseDuration.toSeconds());
      try {
        leases.replaceNamespacedLease(name, namespace, lease).execute();
        writtenAt = OptionalLong.of(sentAt);
      } catch (ApiException e) {
        log.debug("Member Lease {} not renewed (HTTP {})", name, e.getCode());
      }
    }
  }

  /** The live members, this replica among them, sorted. */
  List<String> live(Map<String, V1Lease> byName) {
    TreeSet<String> live = new TreeSet<>();
    live.add(identity);
    byName.forEach((name, lease) -> {
      if (name.startsWith(PREFIX) && !Leases.holder(lease).isEmpty() && !expiry.expired(name)) {
        live.add(Leases.holder(lease));
      }
    });
    return List.copyOf(live);
  }

  /**
   * Empties the member Lease of a replica that died without emptying it (killed, its node lost), as
   * its graceful stop would have. A replica that starts later has seen nothing of that Lease, so it
   * would count the dead one live for its first lease duration, assign it buckets, and take none of
   * those meanwhile. The write carries the version read: should the member renew first, it fails.
   */
  void emptyExpired(Map<String, V1Lease> byName) {
    byName.forEach((name, lease) -> {
      String holder = Leases.holder(lease);
      if (name.startsWith(PREFIX) && !name.equals(leaseName()) && !holder.isEmpty() && expiry.expired(name)) {
        lease.getSpec().holderIdentity("");
        try {
          leases.replaceNamespacedLease(name, namespace, lease).execute();
          log.info("Member Lease {} of {} expired; emptied, as its graceful stop would have", name, holder);
        } catch (ApiException e) {
          log.debug("Member Lease {} not emptied (HTTP {})", name, e.getCode());
        }
      }
    });
  }
}
