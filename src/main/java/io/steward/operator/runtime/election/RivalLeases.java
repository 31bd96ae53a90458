package io.steward.operator.runtime.election;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The Leases of the other way of running, which must not write while this one does: the leader Lease
 * as the sharded replicas see it, the bucket Leases as a leader sees them. The two modes keep
 * separate records, so a rolling switch from one to the other would otherwise let a leader and
 * sharded replicas write the same objects side by side.
 *
 * <p>Exclusion is a write followed by a read on both sides: a replica takes its own Lease only when it
 * read every rival Lease free, and keeps it only when a second read after its write finds no rival
 * taken in between. The API server orders the two writes, so whichever came second is seen by the
 * other's second read, or sees the first in its own first read; at most one side goes on, and both
 * may back off and try again.
 *
 * <p>A rival Lease is held while it names a holder and was seen changing within a lease duration by
 * this replica's monotonic clock; holders that stopped renewing count as gone after that, as the
 * elector judges a Lease.
 */
public final class RivalLeases {
  /** Which Leases: one by name, or all those a label selector picks. */
  public interface Source {
    List<V1Lease> read() throws ApiException;

    static Source named(CoordinationV1Api leases, String namespace, String name) {
      return () -> {
        try {
          return List.of(leases.readNamespacedLease(name, namespace).execute());
        } catch (ApiException e) {
          if (e.getCode() == 404) {
            return List.of();
          }
          throw e;
        }
      };
    }

    static Source labelled(CoordinationV1Api leases, String namespace, String labelSelector) {
      return () -> leases.listNamespacedLease(namespace).labelSelector(labelSelector).execute().getItems();
    }
  }

  /** What one read found: every rival Lease's resourceVersion and holder, and those still held. */
  public record Reading(Map<String, String> versions, Map<String, String> holders, List<String> held) {
    public boolean anyHeld() {
      return !held.isEmpty();
    }

    /** Whether some rival Lease now names a holder and was written since {@code before}. */
    public boolean takenSince(Reading before) {
      return holders.entrySet().stream().anyMatch(e -> !e.getValue().isEmpty()
          && !Objects.equals(versions.get(e.getKey()), before.versions().get(e.getKey())));
    }

    /** The rival Leases held, with their holders, for a log line. */
    public String describeHeld() {
      return held.stream().map(name -> name + " (" + holders.get(name) + ")").toList().toString();
    }
  }

  private final Source source;
  private final LeaseExpiry expiry;

  public RivalLeases(Source source, Duration leaseDuration) {
    this(source, leaseDuration, System::nanoTime);
  }

  RivalLeases(Source source, Duration leaseDuration, LongSupplier nanoClock) {
    this.source = source;
    this.expiry = new LeaseExpiry(leaseDuration, nanoClock);
  }

  public synchronized Reading read() throws ApiException {
    List<V1Lease> leases = source.read();
    long answeredAt = expiry.now();
    Map<String, String> versions = new HashMap<>();
    Map<String, String> holders = new HashMap<>();
    for (V1Lease lease : leases) {
      String name = lease.getMetadata().getName();
      String version = lease.getMetadata().getResourceVersion();
      versions.put(name, version);
      holders.put(name, Leases.holder(lease));
      expiry.saw(name, version, answeredAt);
    }
    expiry.keepOnly(versions.keySet());
    List<String> held = holders.entrySet().stream()
        .filter(e -> !e.getValue().isEmpty() && !expiry.expired(e.getKey()))
        .map(Map.Entry::getKey).sorted().toList();
    return new Reading(Map.copyOf(versions), Map.copyOf(holders), held);
  }
}
