package io.steward.operator.deploy;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.steward.operator.deploy.ServiceAccountAccess.Request;
import io.steward.testing.cluster.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What the deployment tests share: namespaces, cleanup, and the requests Steward must and must not be allowed. */
final class DeployTesting {
  private DeployTesting() {}

  /** Labels the namespace to enforce (and warn about) the restricted Pod Security Standard. */
  static void enforceRestrictedPodSecurity(LocalCluster cluster, String namespace) throws ApiException {
    String patch = "{\"metadata\":{\"labels\":{\"pod-security.kubernetes.io/enforce\":\"restricted\","
        + "\"pod-security.kubernetes.io/enforce-version\":\"latest\",\"pod-security.kubernetes.io/warn\":\"restricted\","
        + "\"pod-security.kubernetes.io/warn-version\":\"latest\"}}}";
    PatchUtils.patch(V1Namespace.class, () -> new CoreV1Api(cluster.adminClient())
        .patchNamespace(namespace, new V1Patch(patch)).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        cluster.adminClient());
  }

  /**
   * Deletes the cluster-scoped objects among {@code manifests} (RBAC, the fence, flow control; not the
   * CRD, which other tests share); namespaced ones go with their namespace.
   */
  static void deleteClusterScoped(LocalCluster cluster, Manifests manifests) {
    if (manifests == null) {
      return;
    }
    for (Map<String, Object> object : manifests.objects()) {
      String[] groupPlural = switch ((String) object.get("kind")) {
        case "ClusterRole" -> new String[] {"rbac.authorization.k8s.io", "clusterroles"};
        case "ClusterRoleBinding" -> new String[] {"rbac.authorization.k8s.io", "clusterrolebindings"};
        case "ValidatingAdmissionPolicy" -> new String[] {"admissionregistration.k8s.io", "validatingadmissionpolicies"};
        case "ValidatingAdmissionPolicyBinding" ->
            new String[] {"admissionregistration.k8s.io", "validatingadmissionpolicybindings"};
        case "FlowSchema" -> new String[] {"flowcontrol.apiserver.k8s.io", "flowschemas"};
        case "PriorityLevelConfiguration" -> new String[] {"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"};
        default -> null;
      };
      if (groupPlural != null) {
        new DynamicKubernetesApi(groupPlural[0], "v1", groupPlural[1], cluster.adminClient()).delete(Manifests.name(object));
      }
    }
  }

  static List<V1Pod> pods(LocalCluster cluster, String namespace, String selector) {
    try {
      return new CoreV1Api(cluster.adminClient()).listNamespacedPod(namespace).labelSelector(selector).execute()
          .getItems();
    } catch (ApiException e) {
      throw new IllegalStateException("HTTP " + e.getCode() + ": " + e.getResponseBody(), e);
    }
  }

  static boolean exists(LocalCluster cluster, String group, String version, String plural, String namespace, String name) {
    var response = new DynamicKubernetesApi(group, version, plural, cluster.adminClient()).get(namespace, name);
    if (response.isSuccess()) {
      return true;
    }
    if (response.getHttpStatusCode() == 404) {
      return false;
    }
    throw new IllegalStateException("reading " + plural + " " + namespace + "/" + name + ": HTTP "
        + response.getHttpStatusCode());
  }

  /** Every request Steward sends about WebApps in {@code namespace} (see RbacRules.MANAGER). */
  static List<Request> managerRequests(String namespace) {
    List<Request> requests = new ArrayList<>();
    for (String permission : RbacRules.MANAGER) {
      String[] parts = permission.split(" ");
      requests.add(Request.of(parts[1], parts[0], namespace, parts[1].matches("get|update|patch|delete") ? "some-app" : null));
    }
    return requests;
  }

  /** What leader election does with the Lease in the release namespace. */
  static List<Request> leaseRequests(String namespace, String leaseName) {
    return List.of(Request.of("create", "coordination.k8s.io/leases", namespace),
        Request.of("get", "coordination.k8s.io/leases", namespace, leaseName),
        Request.of("update", "coordination.k8s.io/leases", namespace, leaseName),
        // watched by name: a standby sees a release at once
        Request.of("list", "coordination.k8s.io/leases", namespace, leaseName),
        Request.of("watch", "coordination.k8s.io/leases", namespace, leaseName),
        // the sharded mode's bucket Leases, read before taking the leader Lease (the mode lock)
        Request.of("list", "coordination.k8s.io/leases", namespace));
  }

  /** What Steward must never be allowed, wherever it manages WebApps or runs. */
  static List<Request> neverAllowed(String managed, String release, String leaseName) {
    List<Request> requests = new ArrayList<>();
    for (String namespace : List.of(managed, release)) {
      requests.add(Request.of("get", "/secrets", namespace, "some-secret"));
      requests.add(Request.of("list", "/secrets", namespace));
      requests.add(Request.of("watch", "/secrets", namespace));
      requests.add(Request.of("get", "/configmaps", namespace, "some-config"));
      requests.add(Request.of("create", "/pods", namespace));
      requests.add(Request.of("create", "/pods/exec", namespace, "some-pod"));
      requests.add(Request.of("delete", "apps/deployments", namespace, "some-app"));
      // Patches of the fields it owns only: a whole-object update could drop what others set.
      requests.add(Request.of("update", "apps/deployments", namespace, "some-app"));
      requests.add(Request.of("update", "/services", namespace, "some-app"));
      requests.add(Request.of("update", "steward.io/webapps/status", namespace, "some-app"));
      requests.add(Request.of("deletecollection", "/services", namespace));
      // Steward writes a WebApp's status, never its spec, and never creates or deletes one.
      requests.add(Request.of("create", "steward.io/webapps", namespace));
      requests.add(Request.of("update", "steward.io/webapps", namespace, "some-app"));
      requests.add(Request.of("patch", "steward.io/webapps", namespace, "some-app"));
      requests.add(Request.of("delete", "steward.io/webapps", namespace, "some-app"));
      requests.add(Request.of("delete", "/events", namespace, "some-event"));
      requests.add(Request.of("create", "rbac.authorization.k8s.io/rolebindings", namespace));
    }
    requests.add(Request.of("list", "/secrets", ""));
    requests.add(Request.of("list", "/namespaces", ""));
    requests.add(Request.of("list", "/nodes", ""));
    requests.add(Request.of("create", "rbac.authorization.k8s.io/clusterrolebindings", ""));
    requests.add(Request.of("update", "apiextensions.k8s.io/customresourcedefinitions", "", "webapps.steward.io"));
    // The Lease: only the named one (get, update, and list/watch by name; create), only in the release
    // namespace; other Leases there may be listed (the mode lock reads the bucket Leases), not read one by one or written.
    requests.add(Request.of("delete", "coordination.k8s.io/leases", release, leaseName));
    requests.add(Request.of("watch", "coordination.k8s.io/leases", release));
    requests.add(Request.of("update", "coordination.k8s.io/leases", release, "someone-elses-lease"));
    requests.add(Request.of("get", "coordination.k8s.io/leases", release, "someone-elses-lease"));
    requests.add(Request.of("update", "coordination.k8s.io/leases", managed, leaseName));
    requests.add(Request.of("create", "coordination.k8s.io/leases", managed));
    return requests;
  }

  /** Copies a directory tree, files replaced where they exist (for chart copies and image layers). */
  static void copyTree(Path from, Path to) throws IOException {
    try (var paths = Files.walk(from)) {
      for (Path source : paths.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
