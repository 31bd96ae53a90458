package io.steward.operator.deploy;

import static io.steward.operator.deploy.Manifests.list;
import static io.steward.operator.deploy.Manifests.map;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The restricted Pod Security Standard (Kubernetes' "restricted" profile, latest), checked on the pod
 * specs a chart renders: what the API server's PodSecurity admission would refuse in a namespace that
 * enforces it. HelmChartIT has the server judge the same objects; this runs without a cluster, for
 * every combination of values.
 */
final class RestrictedPodSecurity {
  private static final Set<String> VOLUME_TYPES = Set.of("configMap", "csi", "downwardAPI", "emptyDir",
      "ephemeral", "persistentVolumeClaim", "projected", "secret");

  private RestrictedPodSecurity() {}

  /** The pod specs of a rendered chart: Pods themselves, and the templates of workloads. */
  static List<Map<String, Object>> podSpecs(Manifests out) {
    List<Map<String, Object>> specs = new ArrayList<>();
    for (Map<String, Object> object : out.objects()) {
      if ("Pod".equals(object.get("kind"))) {
        specs.add(map(object, "spec"));
      } else if (!map(object, "spec", "template", "spec").isEmpty()) {
        specs.add(map(object, "spec", "template", "spec"));
      } else if (!map(object, "spec", "jobTemplate", "spec", "template", "spec").isEmpty()) {
        specs.add(map(object, "spec", "jobTemplate", "spec", "template", "spec"));
      }
    }
    return specs;
  }

  /** What the restricted profile refuses in this pod spec; empty when it complies. */
  static List<String> violations(Map<String, Object> pod) {
    List<String> found = new ArrayList<>();
    for (String host : List.of("hostNetwork", "hostPID", "hostIPC")) {
      if (Boolean.TRUE.equals(pod.get(host))) {
        found.add(host);
      }
    }
    for (Map<String, Object> volume : list(pod, "volumes")) {
      if (volume.keySet().stream().filter(k -> !k.equals("name")).anyMatch(k -> !VOLUME_TYPES.contains(k))) {
        found.add("volume type of " + volume.get("name"));
      }
    }
    Map<String, Object> podContext = map(pod, "securityContext");
    List<Map<String, Object>> containers = new ArrayList<>(list(pod, "containers"));
    containers.addAll(list(pod, "initContainers"));
    for (Map<String, Object> container : containers) {
      String name = "container " + container.get("name") + ": ";
      Map<String, Object> context = map(container, "securityContext");
      if (Boolean.TRUE.equals(context.get("privileged"))) {
        found.add(name + "privileged");
      }
      if (!Boolean.FALSE.equals(context.get("allowPrivilegeEscalation"))) {
        found.add(name + "allowPrivilegeEscalation must be false");
      }
      Object drop = map(context, "capabilities").get("drop");
      if (!(drop instanceof List<?> dropped && dropped.contains("ALL"))) {
        found.add(name + "capabilities.drop must include ALL");
      }
      Object add = map(context, "capabilities").get("add");
      if (add instanceof List<?> added && added.stream().anyMatch(c -> !"NET_BIND_SERVICE".equals(c))) {
        found.add(name + "capabilities.add beyond NET_BIND_SERVICE");
      }
      Object nonRoot = context.containsKey("runAsNonRoot") ? context.get("runAsNonRoot") : podContext.get("runAsNonRoot");
      if (!Boolean.TRUE.equals(nonRoot)) {
        found.add(name + "runAsNonRoot must be true");
      }
      Object user = context.containsKey("runAsUser") ? context.get("runAsUser") : podContext.get("runAsUser");
      if (Integer.valueOf(0).equals(user)) {
        found.add(name + "runAsUser 0");
      }
      Object seccomp = map(context, "seccompProfile").isEmpty() ? map(podContext, "seccompProfile").get("type")
          : map(context, "seccompProfile").get("type");
      if (!"RuntimeDefault".equals(seccomp) && !"Localhost".equals(seccomp)) {
        found.add(name + "seccompProfile must be RuntimeDefault or Localhost");
      }
      for (Map<String, Object> port : list(container, "ports")) {
        if (port.get("hostPort") != null && !Integer.valueOf(0).equals(port.get("hostPort"))) {
          found.add(name + "hostPort");
        }
      }
    }
    return found;
  }
}
