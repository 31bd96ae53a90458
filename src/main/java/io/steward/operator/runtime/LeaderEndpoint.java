package io.steward.operator.runtime;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/leader}: this replica's identity and whether it leads, and the Lease as the API
 * server has it now (holder, acquire and renew times, transitions). Reads the Lease on each call,
 * so it shows the truth rather than this replica's last impression.
 */
@Endpoint(id = "leader")
public final class LeaderEndpoint {
  private final Leadership leadership;
  private final StewardProperties.LeaderElection settings;
  private final String leaseNamespace;
  private final CoordinationV1Api coordination;

  public LeaderEndpoint(Leadership leadership, StewardProperties.LeaderElection settings, String leaseNamespace,
      ApiClient client) {
    this.leadership = leadership;
    this.settings = settings;
    this.leaseNamespace = leaseNamespace;
    this.coordination = new CoordinationV1Api(client);
  }

  @ReadOperation
  public Map<String, Object> leader() {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("identity", leadership.identity());
    result.put("leaderElection", settings.isEnabled());
    result.put("leading", leadership.isLeading());
    result.put("acquiredAt", leadership.acquiredAt() == null ? null : leadership.acquiredAt().toString());
    result.put("leaderTransitionsSeen", leadership.transitionsSeen());
    if (!settings.isEnabled()) {
      return result;
    }
    Map<String, Object> lease = new LinkedHashMap<>();
    lease.put("name", settings.getLeaseName());
    lease.put("namespace", leaseNamespace);
    lease.put("leaseDuration", settings.getLeaseDuration().toString());
    lease.put("renewDeadline", settings.getRenewDeadline().toString());
    lease.put("retryPeriod", settings.getRetryPeriod().toString());
    try {
      V1Lease current = coordination.readNamespacedLease(settings.getLeaseName(), leaseNamespace).execute();
      var spec = current.getSpec();
      lease.put("holder", spec.getHolderIdentity());
      lease.put("acquireTime", spec.getAcquireTime() == null ? null : spec.getAcquireTime().toString());
      lease.put("renewTime", spec.getRenewTime() == null ? null : spec.getRenewTime().toString());
      lease.put("leaseTransitions", spec.getLeaseTransitions());
    } catch (ApiException e) {
      lease.put("holder", leadership.observedHolder());
      lease.put("readError", "HTTP " + e.getCode() + " reading the Lease; holder is as last observed");
    }
    result.put("lease", lease);
    return result;
  }
}
