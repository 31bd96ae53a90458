package io.steward.operator.deploy;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1BoundObjectReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewStatus;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.steward.testing.cluster.LocalCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.List;

/**
 * A ServiceAccount as the API server sees it: what its RBAC allows (SubjectAccessReview, answered by
 * the server's own RBAC authorizer) and a kubeconfig with a token for it (TokenRequest API).
 */
public final class ServiceAccountAccess {
  private final ApiClient admin;
  private final String namespace;
  private final String name;

  public ServiceAccountAccess(ApiClient admin, String namespace, String name) {
    this.admin = admin;
    this.namespace = namespace;
    this.name = name;
  }

  String userName() {
    return "system:serviceaccount:" + namespace + ":" + name;
  }

  /** One request as "verb group/resource[/subresource] [name] in namespace" (namespace "" = cluster-wide). */
  record Request(String verb, String group, String resource, String subresource, String namespace, String name) {
    static Request of(String verb, String groupResource, String namespace) {
      return of(verb, groupResource, namespace, null);
    }

    /** groupResource: "apps/deployments", "/services" (core), "steward.io/webapps/status". */
    static Request of(String verb, String groupResource, String namespace, String name) {
      String[] parts = groupResource.split("/", -1);
      return new Request(verb, parts[0], parts[1], parts.length > 2 ? parts[2] : null, namespace, name);
    }

    @Override
    public String toString() {
      return verb + " " + group + "/" + resource + (subresource == null ? "" : "/" + subresource)
          + (name == null ? "" : " " + name) + (namespace.isEmpty() ? " (all namespaces)" : " in " + namespace);
    }
  }

  private static Path tokenFile(Path kubeconfig) {
    return kubeconfig.resolveSibling(kubeconfig.getFileName() + ".token");
  }

  /** Whether the API server's authorizer allows the request for this ServiceAccount, with its groups. */
  boolean allows(Request request) {
    return allows(admin, userName(),
        List.of("system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"), request);
  }

  /** Whether the API server's authorizer allows the request for {@code user} in {@code groups}. */
  static boolean allows(ApiClient admin, String user, List<String> groups, Request request) {
    V1ResourceAttributes attributes = new V1ResourceAttributes().verb(request.verb()).group(request.group())
        .resource(request.resource()).subresource(request.subresource()).name(request.name());
    if (!request.namespace().isEmpty()) {
      attributes.namespace(request.namespace());
    }
    V1SubjectAccessReview review = new V1SubjectAccessReview().spec(new V1SubjectAccessReviewSpec()
        .user(user).groups(groups).resourceAttributes(attributes));
    try {
      V1SubjectAccessReviewStatus status = new AuthorizationV1Api(admin).createSubjectAccessReview(review).execute()
          .getStatus();
      return Boolean.TRUE.equals(status.getAllowed());
    } catch (ApiException e) {
      throw new IllegalStateException("SubjectAccessReview failed: HTTP " + e.getCode() + " " + e.getResponseBody(), e);
    }
  }

  /**
   * A kubeconfig that authenticates as this ServiceAccount with a fresh bound token (TokenRequest),
   * like the projected token the chart mounts into the operator pod.
   */
  public Path writeKubeconfig(LocalCluster cluster, Path file) {
    return writeKubeconfig(cluster, file, null);
  }

  /**
   * The same with a token bound to {@code pod} (null: to no object), as the kubelet gets for the
   * projected token of a pod: the API server then knows the request's pod
   * ({@code authentication.kubernetes.io/pod-name} in the user's extra), and the token dies with the pod.
   */
  public Path writeKubeconfig(LocalCluster cluster, Path file, V1Pod pod) {
    return writeKubeconfig(cluster, file, pod, cluster.apiServerUrl());
  }

  /**
   * The same, reaching the API server at {@code serverUrl} (a {@code FaultProxy} in front of it).
   * The token is in a file of its own beside the kubeconfig ({@code tokenFile}), as a pod's projected
   * token is, so that a test can rotate it ({@link #rotateToken}).
   */
  public Path writeKubeconfig(LocalCluster cluster, Path file, V1Pod pod, String serverUrl) {
    try {
      Path tokenFile = tokenFile(file);
      rotateToken(file, pod);
      String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(cluster.caCertificate()));
      String kubeconfig = """
          apiVersion: v1
          kind: Config
          clusters:
            - name: local
              cluster:
                server: %s
                certificate-authority-data: %s
          users:
            - name: %s
              user:
                tokenFile: %s
          contexts:
            - name: local
              context:
                cluster: local
                user: %s
                namespace: %s
          current-context: local
          """.formatted(serverUrl, ca, name, tokenFile.toAbsolutePath(), name, namespace);
      Files.writeString(file, kubeconfig);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Replaces the token of a kubeconfig {@link #writeKubeconfig} wrote with a fresh one bound to
   * {@code pod} (null: to no object), in one atomic step, as the kubelet rotates a projected token.
   */
  public void rotateToken(Path kubeconfig, V1Pod pod) {
    try {
      V1TokenRequestSpec spec = new V1TokenRequestSpec().expirationSeconds(3600L);
      if (pod != null) {
        spec.boundObjectRef(new V1BoundObjectReference().apiVersion("v1").kind("Pod")
            .name(pod.getMetadata().getName()).uid(pod.getMetadata().getUid()));
      }
      AuthenticationV1TokenRequest token = new CoreV1Api(admin).createNamespacedServiceAccountToken(name, namespace,
          new AuthenticationV1TokenRequest().spec(spec)).execute();
      Path tokenFile = tokenFile(kubeconfig);
      Files.createDirectories(tokenFile.getParent());
      Path next = Files.writeString(tokenFile.resolveSibling(tokenFile.getFileName() + ".next"),
          token.getStatus().getToken());
      Files.move(next, tokenFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (ApiException e) {
      throw new IllegalStateException("TokenRequest for " + userName() + " failed: HTTP " + e.getCode() + " "
          + e.getResponseBody(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
