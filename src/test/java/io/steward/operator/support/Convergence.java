package io.steward.operator.support;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.steward.operator.webapp.api.WebApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Whether every WebApp's Deployment matches its latest spec and its status describes that spec. */
public final class Convergence {
  private Convergence() {}

  /** WebApps (except {@code ignored}) not yet converged, with why. Empty when all are. */
  public static List<String> lagging(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored) throws ApiException {
    Map<String, V1Deployment> deployments = apps.listNamespacedDeployment(namespace).execute().getItems().stream()
        .collect(Collectors.toMap(d -> d.getMetadata().getName(), Function.identity()));
    List<String> lagging = new ArrayList<>();
    for (WebApp webApp : webApps.list()) {
      String name = webApp.getMetadata().getName();
      if (ignored.contains(name)) {
        continue;
      }
      V1Deployment deployment = deployments.get(name);
      if (!Objects.equals(webApp.getStatus().observedGeneration(), webApp.getMetadata().getGeneration())) {
        lagging.add(name + ": observedGeneration " + webApp.getStatus().observedGeneration() + " of "
            + webApp.getMetadata().getGeneration());
      } else if (deployment == null) {
        lagging.add(name + ": no Deployment");
      } else if (!webApp.getSpec().image().equals(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
          || webApp.getSpec().replicasOrDefault() != deployment.getSpec().getReplicas()) {
        lagging.add(name + ": Deployment differs from spec");
      }
    }
    return lagging;
  }

  /** Polls until converged; returns how long it took, or throws with what still lags. */
  public static Duration await(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored, Duration timeout)
      throws InterruptedException {
    long start = System.nanoTime();
    List<String> lagging = List.of("not checked yet");
    while (System.nanoTime() - start < timeout.toNanos()) {
      try {
        lagging = lagging(webApps, apps, namespace, ignored);
        if (lagging.isEmpty()) {
          return Duration.ofNanos(System.nanoTime() - start);
        }
      } catch (ApiException | RuntimeException e) {
        lagging = List.of("API unreachable: " + e.getMessage());
      }
      Thread.sleep(250);
    }
    throw new AssertionError("not converged within " + timeout + ": " + lagging.size() + " lagging, e.g. "
        + lagging.subList(0, Math.min(5, lagging.size())));
  }
}
