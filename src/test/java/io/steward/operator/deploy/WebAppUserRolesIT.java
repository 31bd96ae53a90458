package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.steward.operator.deploy.ServiceAccountAccess.Request;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart's aggregated WebApp roles on the real RBAC authorizer: people bound to Kubernetes'
 * default {@code view}, {@code edit} or {@code admin} ClusterRole in a namespace may use WebApps
 * there once the roles are installed (and not before), through kube-controller-manager's
 * clusterrole-aggregation controller; nobody but Steward may write a WebApp's status.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class WebAppUserRolesIT {
  private static final List<String> USERS = List.of("system:authenticated");
  private static LocalCluster cluster;
  private static Manifests roles;

  @AfterAll
  static void cleanUp() {
    if (cluster != null) {
      DeployTesting.deleteClusterScoped(cluster, roles);
    }
  }

  @Test
  void viewEditAndAdminUsersMayUseWebAppsOnceTheRolesAreInstalled(LocalCluster localCluster, TestNamespace namespace)
      throws Exception {
    cluster = localCluster;
    String ns = namespace.name();
    String elsewhere = ns + "-elsewhere";
    bind(ns, "webapp-user-viewer", "view");
    bind(ns, "webapp-user-editor", "edit");
    bind(ns, "webapp-user-admin", "admin");

    List<Request> read = new ArrayList<>();
    for (String resource : List.of("steward.io/webapps", "steward.io/webapps/status", "steward.io/webapps/scale")) {
      read.add(Request.of("get", resource, ns, "shop"));
    }
    read.add(Request.of("list", "steward.io/webapps", ns));
    read.add(Request.of("watch", "steward.io/webapps", ns));
    List<Request> write = List.of(Request.of("create", "steward.io/webapps", ns),
        Request.of("update", "steward.io/webapps", ns, "shop"), Request.of("patch", "steward.io/webapps", ns, "shop"),
        Request.of("delete", "steward.io/webapps", ns, "shop"), Request.of("deletecollection", "steward.io/webapps", ns),
        Request.of("update", "steward.io/webapps/scale", ns, "shop"), Request.of("patch", "steward.io/webapps/scale", ns, "shop"));
    List<Request> stewardsOnly = List.of(Request.of("update", "steward.io/webapps/status", ns, "shop"),
        Request.of("patch", "steward.io/webapps/status", ns, "shop"));

    // Before: Kubernetes' default roles know nothing of WebApps (the bug this fixes).
    assertThat(read).noneMatch(r -> allows("webapp-user-viewer", r));
    assertThat(write).noneMatch(r -> allows("webapp-user-editor", r));

    roles = Manifests.parse(new Yaml().dumpAll(StewardChart.template("steward", "steward-system", Map.of())
        .where(o -> "ClusterRole".equals(o.get("kind")) && Manifests.name(o).contains("-webapp-")).iterator()));
    assertThat(roles.objects()).hasSize(3);
    Path file = Path.of("target", "deploy-it", ns, "user-roles.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, roles.text());
    new Kubectl(cluster.kubeconfig()).apply(file).orFail("kubectl apply of the chart's user roles");

    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(read).allMatch(r -> allows("webapp-user-viewer", r));
      assertThat(write).allMatch(r -> allows("webapp-user-editor", r));
      assertThat(write).allMatch(r -> allows("webapp-user-admin", r));
    });
    for (String user : List.of("webapp-user-viewer", "webapp-user-editor", "webapp-user-admin")) {
      assertThat(read).as("%s reads", user).allSatisfy(r -> assertThat(allows(user, r)).as("%s: %s", user, r).isTrue());
      assertThat(stewardsOnly).as("%s writes status", user).allSatisfy(r -> assertThat(allows(user, r)).as("%s: %s", user, r).isFalse());
      // Only in the namespace of the binding.
      assertThat(allows(user, Request.of("get", "steward.io/webapps", elsewhere, "shop"))).isFalse();
      assertThat(allows(user, Request.of("list", "steward.io/webapps", ""))).isFalse();
    }
    assertThat(write).allSatisfy(r -> assertThat(allows("webapp-user-viewer", r)).as("viewer: %s", r).isFalse());
  }

  private static boolean allows(String user, Request request) {
    return ServiceAccountAccess.allows(cluster.adminClient(), user, USERS, request);
  }

  private static void bind(String namespace, String user, String clusterRole) throws Exception {
    new RbacAuthorizationV1Api(cluster.adminClient()).createNamespacedRoleBinding(namespace, new V1RoleBinding()
        .metadata(new V1ObjectMeta().name(user))
        .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("ClusterRole").name(clusterRole))
        .subjects(List.of(new RbacV1Subject().kind("User").apiGroup("rbac.authorization.k8s.io").name(user)))).execute();
  }
}
