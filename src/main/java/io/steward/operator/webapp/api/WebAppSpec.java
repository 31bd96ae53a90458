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

  public WebAppSpec withImage(String newImage) {
    return new WebAppSpec(newImage, replicas, port, serviceType, env, resources, readinessPath, paused);
  }

  public WebAppSpec withReplicas(int newReplicas) {
    return new WebAppSpec(image, newReplicas, port, serviceType, env, resources, readinessPath, paused);
  }

  public WebAppSpec withPort(Integer newPort) {
    return new WebAppSpec(image, replicas, newPort, serviceType, env, resources, readinessPath, paused);
  }

  public WebAppSpec withEnv(List<EnvVar> newEnv) {
    return new WebAppSpec(image, replicas, port, serviceType, newEnv, resources, readinessPath, paused);
  }

  public WebAppSpec withResources(ResourceSettings newResources) {
    return new WebAppSpec(image, replicas, port, serviceType, env, newResources, readinessPath, paused);
  }

  public WebAppSpec withPaused(boolean newPaused) {
    return new WebAppSpec(image, replicas, port, serviceType, env, resources, readinessPath, newPaused);
  }

  /** A name/value environment variable. */
  public record EnvVar(String name, String value) {}

  /** The container's resource requests and limits, keyed by resource name (cpu, memory, ...). */
  public record ResourceSettings(Map<String, Quantity> requests,
      Map<String, Quantity> limits) {}

  public enum ServiceType { ClusterIP, NodePort, LoadBalancer }
}
