package io.steward.operator.webapp.api;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Objects;

/** The {@code steward.io/v1alpha1} WebApp resource; its schema is config/crd/bases/steward.io_webapps.yaml. */
public class WebApp implements KubernetesObject {
  public static final String GROUP = "steward.io";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  public static final String KIND = "WebApp";
  public static final String PLURAL = "webapps";

  private String apiVersion = API_VERSION;
  private String kind = KIND;
  private V1ObjectMeta metadata;
  private WebAppSpec spec;
  private WebAppStatus status;

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  public void setApiVersion(String apiVersion) {
    this.apiVersion = apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  public void setKind(String kind) {
    this.kind = kind;
  }

  @Override
  public V1ObjectMeta getMetadata() {
    return metadata;
  }

  public WebApp metadata(V1ObjectMeta metadata) {
    this.metadata = metadata;
    return this;
  }

  public WebAppSpec getSpec() {
    return spec;
  }

  public WebApp spec(WebAppSpec spec) {
    this.spec = spec;
    return this;
  }

  /** The status as last written; {@link WebAppStatus#EMPTY} before Steward's first write. */
  public WebAppStatus getStatus() {
    return status == null ? WebAppStatus.EMPTY : status;
  }

  public WebApp status(WebAppStatus status) {
    this.status = status;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WebApp other && Objects.equals(apiVersion, other.apiVersion)
        && Objects.equals(kind, other.kind) && Objects.equals(metadata, other.metadata)
        && Objects.equals(spec, other.spec) && Objects.equals(status, other.status);
  }

  @Override
  public int hashCode() {
    return Objects.hash(apiVersion, kind, metadata, spec, status);
  }

  @Override
  public String toString() {
    return "WebApp{" + (metadata == null ? "?" : metadata.getNamespace() + "/" + metadata.getName()) + "}";
  }
}
