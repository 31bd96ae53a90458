package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;

import io.kubernetes.client.custom.Quantity;
import io.steward.testing.cluster.LocalCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

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

  String probePath(String probe) {
    return (String) Manifests.value(container(), probe, "httpGet", "path");
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
