package io.steward.operator.webapp;

import com.google.gson.JsonObject;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The WebApp's Service, present only while the spec names a port. */
public final class ServiceResource implements OwnedResource<V1Service> {
  /**
   * Ports merge by number and protocol; a port Steward set and the spec no longer names goes. The
   * selector is one value (atomic in the API server's schema).
   */
  private static final ManagedFields FIELDS = new ManagedFields(Map.of("spec.ports", List.of("port", "protocol")),
      Set.of("spec.ports[]"), Set.of("spec.selector"));

  @Override
  public String kind() {
    return "Service";
  }

  @Override
  public Class<V1Service> type() {
    return V1Service.class;
  }

  @Override
  public V1Service desired(WebApp webApp) {
    WebAppSpec spec = webApp.getSpec();
    if (!spec.hasPort()) {
      return null;
    }
    return new V1Service()
        .apiVersion("v1").kind("Service")
        .metadata(new V1ObjectMeta().name(webApp.getMetadata().getName())
            .namespace(webApp.getMetadata().getNamespace())
            .labels(WebAppLabels.ofOwned(webApp))
            .ownerReferences(List.of(OwnedResource.controllerReference(webApp))))
        .spec(new V1ServiceSpec()
            .type(spec.serviceTypeOrDefault().name())
            .selector(WebAppLabels.selector(webApp))
            .ports(List.of(new V1ServicePort().name(DeploymentResource.PORT_NAME).protocol("TCP")
                .port(spec.port()).targetPort(new IntOrString(DeploymentResource.PORT_NAME)))));
  }

  @Override
  public JsonObject managedTree(JsonObject desiredJson) {
    return OwnedResource.labelsAndSpec(desiredJson);
  }

  @Override
  public ManagedFields managedFields() {
    return FIELDS;
  }

  /** In-cluster URL of a WebApp's Service. */
  public static String url(V1Service service) {
    V1ServicePort port = service.getSpec().getPorts().get(0);
    return "http://" + service.getMetadata().getName() + "." + service.getMetadata().getNamespace()
        + ".svc:" + port.getPort();
  }
}
