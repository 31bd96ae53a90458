package io.steward.operator.support;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Whether every WebApp's Deployment matches its latest spec and its status describes that spec. */
public final class Convergence {
  private Convergence() {}

  /** WebApps (except {@code ignored}) not yet converged, with why. Empty when all are. */
  public static List<String> lagging(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored) throws ApiException {
    return judge(webApps, apps, namespace, ignored, Convergence::lagging);
  }

  /**
   * WebApps (except {@code ignored}) whose world may still move: converged as {@link #lagging} judges,
   * and also each Deployment's rollout complete and its counts in the WebApp's status. Until then the
   * controller manager still writes Deployment status and Steward rightly follows it in the WebApp's.
   */
  public static List<String> unsettled(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored)
      throws ApiException {
    return judge(webApps, apps, namespace, ignored, (webApp, deployment) -> {
      String lagging = lagging(webApp, deployment);
      return lagging != null ? lagging : unsettled(webApp, deployment);
    });
  }

  /** Each WebApp and its Deployment (or null), read once per call, through {@code why}: null when fine. */
  private static List<String> judge(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored,
      BiFunction<WebApp, V1Deployment, String> why) throws ApiException {
    Map<String, V1Deployment> deployments = apps.listNamespacedDeployment(namespace).execute().getItems().stream()
        .collect(Collectors.toMap(d -> d.getMetadata().getName(), Function.identity()));
    List<String> failing = new ArrayList<>();
    for (WebApp webApp : webApps.list()) {
      String name = webApp.getMetadata().getName();
      String reason = ignored.contains(name) ? null : why.apply(webApp, deployments.get(name));
      if (reason != null) {
        failing.add(name + ": " + reason);
      }
    }
    return failing;
  }

  private static String lagging(WebApp webApp, V1Deployment deployment) {
    if (!Objects.equals(webApp.getStatus().observedGeneration(), webApp.getMetadata().getGeneration())) {
      return "observedGeneration " + webApp.getStatus().observedGeneration() + " of " + webApp.getMetadata().getGeneration();
    } else if (deployment == null) {
      return "no Deployment";
    } else if (!webApp.getSpec().image().equals(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        || webApp.getSpec().replicasOrDefault() != deployment.getSpec().getReplicas()) {
      return "Deployment differs from spec";
    }
    return null;
  }

  /** Of a converged WebApp with its Deployment: why its world may still move, or null. */
  private static String unsettled(WebApp webApp, V1Deployment deployment) {
    V1DeploymentStatus rollout = deployment.getStatus() == null ? new V1DeploymentStatus() : deployment.getStatus();
    int desired = Objects.requireNonNullElse(deployment.getSpec().getReplicas(), 1);
    boolean rolledOut = Objects.equals(rollout.getObservedGeneration(), deployment.getMetadata().getGeneration())
        && Objects.equals(rollout.getUpdatedReplicas(), desired) && Objects.equals(rollout.getReplicas(), desired)
        && Objects.equals(rollout.getAvailableReplicas(), desired);
    WebAppStatus status = webApp.getStatus();
    if (!rolledOut) {
      // The counts tell a controller manager still working from a rollout that cannot finish.
      return "Deployment still rolling out (generation " + deployment.getMetadata().getGeneration() + ", observed "
          + rollout.getObservedGeneration() + "; of " + desired + " replicas: " + rollout.getReplicas() + " in all, "
          + rollout.getUpdatedReplicas() + " updated, " + rollout.getAvailableReplicas() + " available)";
    } else if (status.phase() != WebAppStatus.Phase.Ready || !Objects.equals(status.replicas(), desired)
        || !Objects.equals(status.availableReplicas(), desired)) {
      return "status " + status.phase() + ", " + status.availableReplicas() + " of " + desired + " available";
    }
    return null;
  }

  /** Polls until settled (see {@link #unsettled}); returns how long it took, or throws with what still moves. */
  public static Duration awaitSettled(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored,
      Duration timeout) throws InterruptedException {
    return poll(() -> unsettled(webApps, apps, namespace, ignored), "settled", timeout);
  }

  /** Polls until converged; returns how long it took, or throws with what still lags. */
  public static Duration await(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored, Duration timeout)
      throws InterruptedException {
    return poll(() -> lagging(webApps, apps, namespace, ignored), "converged", timeout);
  }

  /** As above, running {@code beforeEachCheck} first each time (to keep a replica running, say). */
  public static Duration await(WebApps webApps, AppsV1Api apps, String namespace, Set<String> ignored, Duration timeout,
      Runnable beforeEachCheck) throws InterruptedException {
    return poll(() -> {
      beforeEachCheck.run();
      return lagging(webApps, apps, namespace, ignored);
    }, "converged", timeout);
  }

  private interface Check {
    List<String> failing() throws ApiException;
  }

  private static Duration poll(Check check, String what, Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    List<String> lagging = List.of("not checked yet");
    // How many lagged at each whole minute: a failure then tells slow progress from none.
    List<Integer> byMinute = new ArrayList<>();
    while (System.nanoTime() - start < timeout.toNanos()) {
      try {
        lagging = check.failing();
        if (lagging.isEmpty()) {
          return Duration.ofNanos(System.nanoTime() - start);
        }
      } catch (ApiException | RuntimeException e) {
        lagging = List.of("API unreachable: " + e.getMessage());
      }
      if (Duration.ofNanos(System.nanoTime() - start).toMinutes() >= byMinute.size()) {
        byMinute.add(lagging.size());
      }
      Thread.sleep(250);
    }
    throw new AssertionError("not " + what + " within " + timeout + ": " + lagging.size() + " lagging (at each minute: "
        + byMinute + "), e.g. " + lagging.subList(0, Math.min(5, lagging.size())));
  }
}
