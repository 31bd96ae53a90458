package io.steward.operator.runtime.web;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.steward.operator.runtime.election.LeaderElection;
import io.steward.operator.runtime.election.LeaderLease;
import io.steward.operator.runtime.election.Leadership;
import io.steward.operator.runtime.lifecycle.OperatorLifecycle;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/leader}: this replica's identity, whether it leads and how much of its term is
 * left, and the Lease as this replica's watch last saw it (holder, acquire and renew times,
 * transitions). It answers from what the election already knows: a probe costs the API server
 * nothing and never competes with Lease renewals.
 */
@Endpoint(id = "leader")
public final class LeaderEndpoint {
  private final Leadership leadership;
  private final LeaderLease leaderLease;
  private final OperatorLifecycle lifecycle;

  /** @param leaderLease null with leader election off */
  public LeaderEndpoint(Leadership leadership, LeaderLease leaderLease, OperatorLifecycle lifecycle) {
    this.leadership = leadership;
    this.leaderLease = leaderLease;
    this.lifecycle = lifecycle;
  }

  @ReadOperation
  public Map<String, Object> leader() {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("identity", leadership.identity());
    result.put("leaderElection", leaderLease != null);
    result.put("leading", leadership.isLeading());
    result.put("acquiredAt", leadership.acquiredAt() == null ? null : leadership.acquiredAt().toString());
    result.put("leaderTransitionsSeen", leadership.transitionsSeen());
    LeaderElection election = lifecycle.election();
    if (leaderLease == null || election == null) {
      return result;
    }
    result.put("termRemainingMillis", election.term().remaining().toMillis());
    Map<String, Object> lease = new LinkedHashMap<>();
    lease.put("name", leaderLease.name());
    lease.put("namespace", leaderLease.namespace());
    lease.put("leaseDuration", leaderLease.timings().leaseDuration().toString());
    lease.put("renewDeadline", leaderLease.timings().renewDeadline().toString());
    lease.put("retryPeriod", leaderLease.timings().retryPeriod().toString());
    V1Lease seen = election.lease();
    V1LeaseSpec spec = seen == null || seen.getSpec() == null ? new V1LeaseSpec() : seen.getSpec();
    lease.put("holder", seen == null ? leadership.observedHolder() : spec.getHolderIdentity());
    lease.put("acquireTime", spec.getAcquireTime() == null ? null : spec.getAcquireTime().toString());
    lease.put("renewTime", spec.getRenewTime() == null ? null : spec.getRenewTime().toString());
    lease.put("leaseTransitions", spec.getLeaseTransitions());
    lease.put("resourceVersion", seen == null ? null : seen.getMetadata().getResourceVersion());
    result.put("lease", lease);
    return result;
  }
}
