package io.steward.operator.webapp.api;

import io.kubernetes.client.custom.Quantity;
import java.util.List;
import java.util.Map;

/**
 * What the user asked for. Defaults are applied by the API server (see the CRD), but a spec read
 * from elsewhere may lack them, so the accessors below fill them in the same way.
 */
public record WebAppSpec(String image, Integer replicas, Integer port, ServiceType serviceType,
    List<EnvVar> env, ResourceSettings resources, String readinessPath, Boolean paused) {

  public int replicasOrDefault() {
    return replicas == null ? 1 : replicas;
  }

  public ServiceType serviceTypeOrDefault() {
    return serviceType == null ? ServiceType.ClusterIP : serviceType;
  }

  public List<EnvVar> envOrEmpty() {
    return env == null ? List.of() : env;
  }

  public boolean isPaused() {
    return Boolean.TRUE.equals(paused);
  }

  public boolean hasPort() {
    return port != null;
  }

  /** A name/value environment variable. */
  public record EnvVar(String name, String value) {}

  /** The container's resource requests and limits, keyed by resource name (cpu, memory, ...). */
  public record ResourceSettings(Map<String, Quantity> requests,
      Map<String, Quantity> limits) {}

  public enum ServiceType { ClusterIP, NodePort, LoadBalancer }
}
