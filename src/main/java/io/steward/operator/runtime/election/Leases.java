package io.steward.operator.runtime.election;

import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseList;
import io.steward.operator.runtime.support.LogSafe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the leader election and the sharded mode read alike from Leases. */
public final class Leases {
  private static final Logger log = LoggerFactory.getLogger(Leases.class);

  /**
   * Label on every Lease of the sharded mode, {@code member} or {@code bucket}: one list reads them
   * all, and a leader reads the bucket Leases as its rivals.
   */
  public static final String SHARD_LEASE_LABEL = "steward.io/shard-lease";

  private Leases() {}

  /** The Lease's holder; empty when there is none (released, or no Lease at all). */
  public static String holder(V1Lease lease) {
    return lease == null || lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null ? ""
        : lease.getSpec().getHolderIdentity();
  }

  /**
   * An informer on the Leases of {@code namespace} that a field or a label selector picks (either may
   * be null). Its list and watch failures are logged at debug only: what reads it also reads the
   * Leases itself, so a failing watch only delays what it would have seen sooner.
   */
  public static SharedIndexInformer<V1Lease> informer(SharedInformerFactory factory, ApiClient watches, String namespace,
      String fieldSelector, String labelSelector, String what) {
    CoordinationV1Api coordination = new CoordinationV1Api(watches);
    return factory.sharedIndexInformerFor(params -> coordination.listNamespacedLease(namespace)
            .fieldSelector(fieldSelector).labelSelector(labelSelector).resourceVersion(params.resourceVersion)
            .timeoutSeconds(params.timeoutSeconds).watch(params.watch).buildCall(null),
        V1Lease.class, V1LeaseList.class, 0,
        (type, error) -> log.debug("{} watch failed: {}", what, LogSafe.describe(error)));
  }
}
