package io.steward.operator.runtime.sharding;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Lease;
import io.steward.operator.runtime.election.Leases;

/**
 * Watches the sharded mode's Leases, so that {@link BucketOwnership} sees each renewal when it
 * happens rather than at its next round's list, up to a retry period later. A silent replica's
 * Leases then count as expired a lease duration after its last renewal reached this replica, and
 * its buckets are taken over that much sooner. A bucket released by its holder is taken at once
 * rather than at the next round.
 *
 * <p>The rounds still list the Leases and write with the versions they read: the watch only makes
 * sightings earlier, and a sighting made on arrival of an event comes after the write it reports
 * was committed, so an expiry judged from it is never earlier than one judged from a list.
 */
public final class ShardLeaseWatch {
  private final SharedInformerFactory factory;

  public ShardLeaseWatch(ApiClient watches, String namespace, BucketOwnership ownership) {
    this.factory = new SharedInformerFactory(watches);
    Leases.informer(factory, watches, namespace, null, Leases.SHARD_LEASE_LABEL, "Shard Lease")
        .addEventHandler(new ResourceEventHandler<>() {
          @Override
          public void onAdd(V1Lease lease) {
            ownership.sawOnWatch(lease);
          }

          @Override
          public void onUpdate(V1Lease before, V1Lease after) {
            ownership.sawOnWatch(after);
            if (!Leases.holder(before).isEmpty() && Leases.holder(after).isEmpty()) {
              ownership.roundSoon();
            }
          }

          @Override
          public void onDelete(V1Lease lease, boolean finalStateUnknown) {
            // The next round's list forgets it.
          }
        });
  }

  public void start() {
    factory.startAllRegisteredInformers();
  }

  public void stop() {
    factory.stopAllRegisteredInformers();
  }
}
