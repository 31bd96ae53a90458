package io.steward.operator.runtime.sharding;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.steward.operator.runtime.election.Leases;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

/** The Leases of sharded mode as they are first written: a member's or a bucket's, labelled so one list reads them all. */
final class ShardLeases {
  private ShardLeases() {}

  /** @param kind {@code member} or {@code bucket}; {@code bucket} null for a member's */
  static V1Lease newLease(String name, String namespace, String holder, String kind, Integer bucket,
      Duration leaseDuration) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(Leases.SHARD_LEASE_LABEL, kind);
    if (bucket != null) {
      labels.put(BucketHash.LABEL, Integer.toString(bucket));
    }
    OffsetDateTime now = now();
    return new V1Lease().metadata(new V1ObjectMeta().name(name).namespace(namespace).labels(labels))
        .spec(new V1LeaseSpec().holderIdentity(holder).acquireTime(now).renewTime(now)
            .leaseDurationSeconds((int) leaseDuration.toSeconds()).leaseTransitions(0));
  }

  static OffsetDateTime now() {
    return OffsetDateTime.now(ZoneOffset.UTC);
  }
}
