package io.steward.operator.webapp.api;

import io.kubernetes.client.custom.Quantity;
import java.util.List;
import java.util.Map;

/**
 * What the user asked for. Defaults are applied by the API server (see the CRD), but a spec read
 * from elsewhere may lack them, so the accessors below fill them in the same way.
 */
public record WebAppSpec(String image, Integer replicas, Integer port, ServiceType serviceType,
    List<EnvVar> env, ResourceSettings resources, String readinessPath, Boolean paused,
    Boolean runAsNonRoot, Long runAsUser, Boolean automountServiceAccountToken) {

  /** A spec with the pod's security settings left to their defaults. */
  public WebAppSpec(String image, Integer replicas, Integer port, ServiceType serviceType, List<EnvVar> env,
      ResourceSettings resources, String readinessPath, Boolean paused) {
    this(image, replicas, port, serviceType, env, resources, readinessPath, paused, null, null, null);
  }

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

  /** True unless the spec says the image must run as root: the restricted Pod Security Standard's default. */
  public boolean runAsNonRootOrDefault() {
    return !Boolean.FALSE.equals(runAsNonRoot);
  }

  /** False unless the spec asks for the service account token in the pods. */
  public boolean automountServiceAccountTokenOrDefault() {
    return Boolean.TRUE.equals(automountServiceAccountToken);
  }

  public WebAppSpec withImage(String newImage) {
    return new WebAppSpec(newImage, replicas, port, serviceType, env, resources, readinessPath, paused,
        runAsNonRoot, runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withReplicas(int newReplicas) {
    return new WebAppSpec(image, newReplicas, port, serviceType, env, resources, readinessPath, paused,
        runAsNonRoot, runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withPort(Integer newPort) {
    return new WebAppSpec(image, replicas, newPort, serviceType, env, resources, readinessPath, paused,
        runAsNonRoot, runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withServiceType(ServiceType newServiceType) {
    return new WebAppSpec(image, replicas, port, newServiceType, env, resources, readinessPath, paused,
        runAsNonRoot, runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withEnv(List<EnvVar> newEnv) {
    return new WebAppSpec(image, replicas, port, serviceType, newEnv, resources, readinessPath, paused,
        runAsNonRoot, runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withResources(ResourceSettings newResources) {
    return new WebAppSpec(image, replicas, port, serviceType, env, newResources, readinessPath, paused,
        runAsNonRoot, runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withPaused(boolean newPaused) {
    return new WebAppSpec(image, replicas, port, serviceType, env, resources, readinessPath, newPaused,
        runAsNonRoot, runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withRunAsNonRoot(Boolean newRunAsNonRoot) {
    return new WebAppSpec(image, replicas, port, serviceType, env, resources, readinessPath, paused, newRunAsNonRoot,
        runAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withRunAsUser(Long newRunAsUser) {
    return new WebAppSpec(image, replicas, port, serviceType, env, resources, readinessPath, paused, runAsNonRoot,
        newRunAsUser, automountServiceAccountToken);
  }

  public WebAppSpec withAutomountServiceAccountToken(Boolean newAutomount) {
    return new WebAppSpec(image, replicas, port, serviceType, env, resources, readinessPath, paused, runAsNonRoot,
        runAsUser, newAutomount);
  }

  /**
   * An environment variable: a literal value, or a reference to a key of a Secret or ConfigMap in the
   * WebApp's namespace (the CRD admits exactly one). Steward copies references into the pod template
   * as they are and never reads the Secret or ConfigMap: the kubelet resolves them.
   */
  public record EnvVar(String name, String value, EnvVarSource valueFrom) {
    public EnvVar(String name, String value) {
      this(name, value, null);
    }

    public static EnvVar fromSecret(String name, String secret, String key, Boolean optional) {
      return new EnvVar(name, null, new EnvVarSource(new KeyReference(secret, key, optional), null));
    }

    public static EnvVar fromConfigMap(String name, String configMap, String key, Boolean optional) {
      return new EnvVar(name, null, new EnvVarSource(null, new KeyReference(configMap, key, optional)));
    }
  }

  /** Where a variable's value comes from: exactly one of the two references. */
  public record EnvVarSource(KeyReference secretKeyRef, KeyReference configMapKeyRef) {}

  /** A key of a Secret or ConfigMap in the WebApp's namespace; optional: the pod starts without it. */
  public record KeyReference(String name, String key, Boolean optional) {}

  /** The container's resource requests and limits, keyed by resource name (cpu, memory, ...). */
  public record ResourceSettings(Map<String, Quantity> requests,
      Map<String, Quantity> limits) {}

  public enum ServiceType { ClusterIP, NodePort, LoadBalancer }
}
