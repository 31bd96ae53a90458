package io.steward.operator.webapp.api;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

public class WebAppList implements KubernetesListObject {
  private String apiVersion = WebApp.API_VERSION;
  private String kind = "WebAppList";
  private V1ListMeta metadata = new V1ListMeta();
  private List<WebApp> items = new ArrayList<>();

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  @Override
  public V1ListMeta getMetadata() {
    return metadata;
  }

  @Override
  public List<WebApp> getItems() {
    return items;
  }
}
