package io.steward.operator.webapp;

import com.google.gson.JsonObject;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1Capabilities;
import io.kubernetes.client.openapi.models.V1ConfigMapKeySelector;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import io.kubernetes.client.openapi.models.V1HTTPGetAction;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSecurityContext;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1SeccompProfile;
import io.kubernetes.client.openapi.models.V1SecretKeySelector;
import io.kubernetes.client.openapi.models.V1SecurityContext;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The WebApp's Deployment: one container named {@value #CONTAINER} running the spec's image. */
public final class DeploymentResource implements OwnedResource<V1Deployment> {
  public static final String CONTAINER = "app";
  public static final String PORT_NAME = "http";

  private static final String CONTAINERS = "spec.template.spec.containers";
  private static final String CONTAINER_ENTRY = CONTAINERS + "[]";
  /**
   * Lists merged by key as the API server merges them; what Steward may remove once the spec drops
   * it: env vars (and an env var's value or valueFrom), ports, resource bounds and the probe.
   */
  private static final ManagedFields FIELDS = new ManagedFields(
      Map.of(CONTAINERS, List.of("name"), CONTAINER_ENTRY + ".env", List.of("name"),
          CONTAINER_ENTRY + ".ports", List.of("containerPort", "protocol")),
      Set.of(CONTAINER_ENTRY + ".env[]", CONTAINER_ENTRY + ".env[].value", CONTAINER_ENTRY + ".env[].valueFrom",
          CONTAINER_ENTRY + ".ports[]", CONTAINER_ENTRY + ".readinessProbe",
          CONTAINER_ENTRY + ".resources.requests.*", CONTAINER_ENTRY + ".resources.limits.*",
          "spec.template.spec.securityContext.runAsUser"),
      Set.of("spec.selector.matchLabels"));

  @Override
  public String kind() {
    return "Deployment";
  }

  @Override
  public Class<V1Deployment> type() {
    return V1Deployment.class;
  }

  @Override
  public V1Deployment desired(WebApp webApp) {
    WebAppSpec spec = webApp.getSpec();
    V1Container container = new V1Container().name(CONTAINER).image(spec.image())
        .env(spec.envOrEmpty().stream().map(DeploymentResource::envVar).toList())
        .resources(resources(spec))
        .ports(spec.hasPort()
            ? List.of(new V1ContainerPort().name(PORT_NAME).containerPort(spec.port()).protocol("TCP"))
            : List.of());
    if (spec.readinessPath() != null && spec.hasPort()) {
      container.readinessProbe(new V1Probe().httpGet(new V1HTTPGetAction()
          .path(spec.readinessPath()).port(new IntOrString(PORT_NAME)).scheme("HTTP")));
    }
    // What the restricted Pod Security Standard asks for, so the pods start in a namespace that
    // enforces it. Only running as root can be asked for (images such as nginx need it), and only a
    // namespace that allows root then admits the pods: Steward grants nothing the namespace does not.
    container.securityContext(new V1SecurityContext().allowPrivilegeEscalation(false)
        .capabilities(new V1Capabilities().drop(List.of("ALL"))));
    return new V1Deployment()
        .apiVersion("apps/v1").kind("Deployment")
        .metadata(new V1ObjectMeta().name(webApp.getMetadata().getName())
            .namespace(webApp.getMetadata().getNamespace())
            .labels(WebAppLabels.ofOwned(webApp))
            .ownerReferences(List.of(OwnedResource.controllerReference(webApp))))
        .spec(new V1DeploymentSpec()
            .replicas(spec.replicasOrDefault())
            .selector(new V1LabelSelector().matchLabels(WebAppLabels.selector(webApp)))
            .template(new V1PodTemplateSpec()
                .metadata(new V1ObjectMeta().labels(WebAppLabels.all(webApp)))
                .spec(new V1PodSpec().containers(List.of(container))
                    .automountServiceAccountToken(spec.automountServiceAccountTokenOrDefault())
                    .securityContext(new V1PodSecurityContext()
                        .runAsNonRoot(spec.runAsNonRootOrDefault())
                        .runAsUser(spec.runAsUser())
                        .seccompProfile(new V1SeccompProfile().type("RuntimeDefault"))))));
  }

  /** Literal values as given (empty means unset, as in a Pod); references as references, never resolved. */
  private static V1EnvVar envVar(WebAppSpec.EnvVar env) {
    V1EnvVar variable = new V1EnvVar().name(env.name());
    if (env.valueFrom() == null) {
      return variable.value(env.value() == null || env.value().isEmpty() ? null : env.value());
    }
    WebAppSpec.KeyReference secret = env.valueFrom().secretKeyRef();
    WebAppSpec.KeyReference configMap = env.valueFrom().configMapKeyRef();
    return variable.valueFrom(new V1EnvVarSource()
        .secretKeyRef(secret == null ? null
            : new V1SecretKeySelector().name(secret.name()).key(secret.key()).optional(secret.optional()))
        .configMapKeyRef(configMap == null ? null
            : new V1ConfigMapKeySelector().name(configMap.name()).key(configMap.key()).optional(configMap.optional())));
  }

  private static V1ResourceRequirements resources(WebAppSpec spec) {
    V1ResourceRequirements requirements = new V1ResourceRequirements().requests(new LinkedHashMap<>())
        .limits(new LinkedHashMap<>());
    if (spec.resources() != null) {
      if (spec.resources().requests() != null) {
        requirements.getRequests().putAll(spec.resources().requests());
      }
      if (spec.resources().limits() != null) {
        requirements.getLimits().putAll(spec.resources().limits());
      }
    }
    return requirements;
  }

  @Override
  public JsonObject managedTree(JsonObject desiredJson) {
    return OwnedResource.labelsAndSpec(desiredJson);
  }

  @Override
  public ManagedFields managedFields() {
    return FIELDS;
  }
}
