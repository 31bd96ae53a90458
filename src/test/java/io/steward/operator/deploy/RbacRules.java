package io.steward.operator.deploy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * RBAC rules flattened to one string per permission, "group/resource verb" (plus " name=X" when the
 * rule names its objects), so that two rule lists can be compared as sets, whatever their grouping.
 */
final class RbacRules {
  /** Everything Steward needs where it manages WebApps (see the chart's steward.managerRules). */
  static final Set<String> MANAGER = Set.of(
      "steward.io/webapps get", "steward.io/webapps list", "steward.io/webapps watch",
      "steward.io/webapps/status patch",
      "steward.io/webapps/finalizers update",
      "apps/deployments get", "apps/deployments list", "apps/deployments watch",
      "apps/deployments create", "apps/deployments patch",
      "/services get", "/services list", "/services watch", "/services create",
      "/services patch", "/services delete",
      "/events create", "/events patch");

  /** The leader Lease, in Steward's own namespace. */
  static Set<String> leaderElection(String leaseName) {
    return Set.of("coordination.k8s.io/leases create",
        "coordination.k8s.io/leases get name=" + leaseName,
        "coordination.k8s.io/leases update name=" + leaseName,
        "coordination.k8s.io/leases list name=" + leaseName,
        "coordination.k8s.io/leases watch name=" + leaseName,
        // the bucket Leases, read before taking the leader Lease (a switch from sharded mode)
        "coordination.k8s.io/leases list");
  }

  private RbacRules() {}

  @SuppressWarnings("unchecked")
  static Set<String> flatten(Map<String, Object> roleOrClusterRole) {
    Set<String> permissions = new TreeSet<>();
    for (Map<String, Object> rule : Manifests.list(roleOrClusterRole, "rules")) {
      List<String> names = (List<String>) rule.getOrDefault("resourceNames", List.of(""));
      for (String group : (List<String>) rule.get("apiGroups")) {
        for (String resource : (List<String>) rule.get("resources")) {
          for (String verb : (List<String>) rule.get("verbs")) {
            for (String name : names) {
              permissions.add(group + "/" + resource + " " + verb + (name.isEmpty() ? "" : " name=" + name));
            }
          }
        }
      }
    }
    return permissions;
  }
}
