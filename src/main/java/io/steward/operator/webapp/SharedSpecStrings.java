package io.steward.operator.webapp;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.openapi.models.V1ConfigMapKeySelector;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1SecretKeySelector;
import io.steward.operator.runtime.cache.InformerCache;
import io.steward.operator.runtime.cache.WatchedKind;
import io.steward.operator.runtime.controller.ControllerManager;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppSpec;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Before a Deployment is cached, points the strings it repeats from its WebApp's spec (image,
 * readiness path, env names, values and references) at the cached WebApp's own instances. Both
 * objects are cached for as long as they exist, and these strings are the bulk of a large WebApp, so
 * otherwise the cache holds each of them twice. Only equal strings are swapped, so the Deployment
 * reads exactly as the API server sent it. A Deployment cached before its WebApp (both lists arrive
 * at once after a start) keeps its own copies until its next change.
 */
public final class SharedSpecStrings implements UnaryOperator<V1Deployment> {
  private final InformerCache<WebApp> webApps;
  private final Function<? super V1Deployment, Request> owner;

  public SharedSpecStrings(InformerCache<WebApp> webApps, WatchedKind<WebApp, ?> webAppKind) {
    this.webApps = webApps;
    this.owner = ControllerManager.controllingOwnerOf(webAppKind);
  }

  @Override
  public V1Deployment apply(V1Deployment deployment) {
    Request request = owner.apply(deployment);
    WebApp webApp = request == null ? null : webApps.get(request.getNamespace(), request.getName());
    if (webApp == null || webApp.getSpec() == null || deployment.getSpec() == null
        || deployment.getSpec().getTemplate().getSpec() == null) {
      return deployment;
    }
    for (V1Container container : deployment.getSpec().getTemplate().getSpec().getContainers()) {
      if (DeploymentResource.CONTAINER.equals(container.getName())) {
        share(webApp.getSpec(), container);
      }
    }
    return deployment;
  }

  private static void share(WebAppSpec spec, V1Container container) {
    container.setImage(same(spec.image(), container.getImage()));
    if (container.getReadinessProbe() != null && container.getReadinessProbe().getHttpGet() != null) {
      var httpGet = container.getReadinessProbe().getHttpGet();
      httpGet.setPath(same(spec.readinessPath(), httpGet.getPath()));
    }
    List<WebAppSpec.EnvVar> wanted = spec.envOrEmpty();
    List<V1EnvVar> live = container.getEnv() == null ? List.of() : container.getEnv();
    for (int i = 0; i < Math.min(wanted.size(), live.size()); i++) {
      share(wanted.get(i), live.get(i));
    }
  }

  private static void share(WebAppSpec.EnvVar wanted, V1EnvVar live) {
    live.setName(same(wanted.name(), live.getName()));
    live.setValue(same(wanted.value(), live.getValue()));
    if (wanted.valueFrom() == null || live.getValueFrom() == null) {
      return;
    }
    WebAppSpec.KeyReference secret = wanted.valueFrom().secretKeyRef();
    V1SecretKeySelector liveSecret = live.getValueFrom().getSecretKeyRef();
    if (secret != null && liveSecret != null) {
      liveSecret.setName(same(secret.name(), liveSecret.getName()));
      liveSecret.setKey(same(secret.key(), liveSecret.getKey()));
    }
    WebAppSpec.KeyReference configMap = wanted.valueFrom().configMapKeyRef();
    V1ConfigMapKeySelector liveConfigMap = live.getValueFrom().getConfigMapKeyRef();
    if (configMap != null && liveConfigMap != null) {
      liveConfigMap.setName(same(configMap.name(), liveConfigMap.getName()));
      liveConfigMap.setKey(same(configMap.key(), liveConfigMap.getKey()));
    }
  }

  /** {@code shared} when it is equal to {@code value}, else {@code value}. */
  private static String same(String shared, String value) {
    return shared != null && shared.equals(value) ? shared : value;
  }
}
