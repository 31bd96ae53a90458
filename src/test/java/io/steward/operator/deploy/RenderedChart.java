package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.steward.operator.support.Crds;
import io.steward.operator.support.OperatorProcess;
import io.steward.testing.cluster.LocalCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart rendered for one release (helm template), written to a file under target/ so that
 * kubectl applies exactly what Helm would install, and read back for what the tests need to know:
 * the ServiceAccount, the operator container's environment, probes and memory limit.
 */
final class RenderedChart {
  final String release;
  final String namespace;
  final Manifests manifests;
  final Path file;

  private RenderedChart(String release, String namespace, Manifests manifests, Path file) {
    this.release = release;
    this.namespace = namespace;
    this.manifests = manifests;
    this.file = file;
  }

  static RenderedChart render(String release, String namespace, Map<String, Object> values) {
    Manifests manifests = StewardChart.template(release, namespace, values);
    Path file = Path.of("target", "deploy-it", namespace, release + ".yaml");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, manifests.text());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new RenderedChart(release, namespace, manifests, file);
  }

  Map<String, Object> deployment() {
    return manifests.single("Deployment");
  }

  Map<String, Object> container() {
    return list(deployment(), "spec", "template", "spec", "containers").get(0);
  }

  String serviceAccountName() {
    return (String) map(deployment(), "spec", "template", "spec").get("serviceAccountName");
  }

  ServiceAccountAccess serviceAccount(LocalCluster cluster) {
    return new ServiceAccountAccess(cluster.adminClient(), namespace, serviceAccountName());
  }

  /**
   * Creates a Pod object named {@code podName} from the Deployment's pod template, as the ReplicaSet
   * would (but with a label of its own, so that no ReplicaSet adopts and deletes it): something to
   * bind a replica's token to (the existing one when there is one). On the local cluster kwok "runs"
   * it; the operator itself runs outside.
   */
  V1Pod createPod(LocalCluster cluster, String podName) {
    Map<String, Object> pod = new LinkedHashMap<>();
    pod.put("apiVersion", "v1");
    pod.put("kind", "Pod");
    pod.put("metadata", Map.of("name", podName, "namespace", namespace, "labels", Map.of("steward.io/test-replica", podName)));
    pod.put("spec", map(deployment(), "spec", "template", "spec"));
    ApiClient admin = cluster.adminClient();
    // As plain JSON: client-java's V1Pod would add fields the template does not set (an empty overhead).
    var created = new DynamicKubernetesApi("", "v1", "pods", admin).create(new DynamicKubernetesObject(Manifests.json(pod)));
    if (!created.isSuccess() && created.getHttpStatusCode() != 409) {
      throw new IllegalStateException("creating pod " + namespace + "/" + podName + ": HTTP "
          + created.getHttpStatusCode() + " " + created.getStatus());
    }
    return existingPod(admin, podName);
  }

  /**
   * Installs the CRD, then the chart for release "steward" in {@code namespace} with short lease
   * settings (lease 6 s, renew deadline 4 s, retry 1 s), all but its Deployment, metrics Service,
   * PodDisruptionBudget and the kinds in {@code alsoSkipped}: the replicas run here instead
   * ({@link #startReplica}).
   */
  static RenderedChart installWithoutItsDeployment(LocalCluster cluster, String namespace, Set<String> alsoSkipped) {
    return installWithoutItsDeployment(cluster, namespace, alsoSkipped, Map.of("leaderElection",
        Map.of("leaseDuration", "6s", "renewDeadline", "4s", "retryPeriod", "1s")));
  }

  /** The same with these chart values instead of the short lease settings ({@code Map.of()}: the chart's defaults). */
  static RenderedChart installWithoutItsDeployment(LocalCluster cluster, String namespace, Set<String> alsoSkipped,
      Map<String, Object> values) {
    Crds.installWebAppCrd(cluster.adminClient());
    RenderedChart chart = render("steward", namespace, values);
    Set<String> skipped = new HashSet<>(Set.of("Deployment", "Service", "PodDisruptionBudget"));
    skipped.addAll(alsoSkipped);
    chart.applyExcept(cluster, skipped);
    return chart;
  }

  /** `kubectl apply` of what the chart renders but the objects of the kinds in {@code skipped}. */
  void applyExcept(LocalCluster cluster, Set<String> skipped) {
    Path part = file.resolveSibling(release + "-applied.yaml");
    try {
      Files.writeString(part, new Yaml().dumpAll(manifests.where(o -> !skipped.contains((String) o.get("kind"))).iterator()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    new Kubectl(cluster.kubeconfig()).apply(part).orFail("kubectl apply of the chart without " + skipped);
  }

  /**
   * The built jar run as pod {@code podName} of this chart: the container's environment (identity =
   * pod name), a token bound to a Pod object of that name (created here), as the pod's projected
   * token is, the container's memory limit as all the RAM there is, and the collector the JVM would
   * pick in that container (see {@link #containerCollector}).
   */
  OperatorProcess startReplica(LocalCluster cluster, String podName, List<String> args) {
    return startReplica(cluster, podName, args, List.of());
  }

  /** The same, with JVM options of the test's own (a GC log, say) besides the chart's. */
  OperatorProcess startReplica(LocalCluster cluster, String podName, List<String> args, List<String> jvmOptions) {
    return startReplica(cluster, podName, args, jvmOptions, cluster.apiServerUrl());
  }

  /** The same, reaching the API server at {@code serverUrl} (a {@code FaultProxy} in front of it). */
  OperatorProcess startReplica(LocalCluster cluster, String podName, List<String> args, List<String> jvmOptions,
      String serverUrl) {
    Path dir = Path.of("target", "deploy-it", namespace, podName);
    Map<String, String> env = new LinkedHashMap<>(env(podName));
    env.put("KUBECONFIG", serviceAccount(cluster).writeKubeconfig(cluster, kubeconfigOf(podName),
        createPod(cluster, podName), serverUrl).toAbsolutePath().toString());
    List<String> options = new java.util.ArrayList<>(List.of("-XX:MaxRAM=" + memoryLimitBytes()));
    options.addAll(containerCollector());
    options.addAll(jvmOptions);
    return OperatorProcess.start(podName, env, options, args, dir.resolve("operator.log"));
  }

  /** The kubeconfig of replica {@code podName}; its token is in a file beside it (see ServiceAccountAccess#rotateToken). */
  Path kubeconfigOf(String podName) {
    return Path.of("target", "deploy-it", namespace, podName, "kubeconfig");
  }

  private V1Pod existingPod(ApiClient admin, String podName) {
    try {
      return new CoreV1Api(admin).readNamespacedPod(podName, namespace).execute();
    } catch (ApiException e) {
      throw new IllegalStateException("reading pod " + namespace + "/" + podName + ": HTTP " + e.getCode(), e);
    }
  }

  String probePath(String probe) {
    return (String) Manifests.value(container(), probe, "httpGet", "path");
  }

  /**
   * The collector a JVM picks by itself in the container, when the chart's options name none: below
   * 1792 MiB of memory it is not a "server class machine" and takes SerialGC. {@code -XX:MaxRAM}
   * does not change that choice outside a container, so it is made explicit here.
   */
  List<String> containerCollector() {
    boolean named = env("pod").getOrDefault("JAVA_TOOL_OPTIONS", "").matches(".*-XX:\\+Use\\w+GC.*");
    return named || memoryLimitBytes() >= 1792L * 1024 * 1024 ? List.of() : List.of("-XX:+UseSerialGC");
  }

  long memoryLimitBytes() {
    return Quantity.fromString((String) Manifests.value(container(), "resources", "limits", "memory"))
        .getNumber().longValueExact();
  }

  String leaseName() {
    return env("pod").get("STEWARD_LEADERELECTION_LEASENAME");
  }

  /**
   * The operator container's environment as the kubelet would set it for pod {@code podName}: plain
   * values as rendered, downward-API fields resolved.
   */
  Map<String, String> env(String podName) {
    Map<String, String> env = new LinkedHashMap<>();
    for (Map<String, Object> variable : list(container(), "env")) {
      String name = (String) variable.get("name");
      if (variable.containsKey("value")) {
        env.put(name, String.valueOf(variable.get("value")));
        continue;
      }
      String field = (String) Manifests.value(variable, "valueFrom", "fieldRef", "fieldPath");
      switch (String.valueOf(field)) {
        case "metadata.name" -> env.put(name, podName);
        case "metadata.namespace" -> env.put(name, namespace);
        default -> throw new AssertionError("env " + name + ": a source this test cannot resolve: " + variable);
      }
    }
    return env;
  }
}
