package io.steward.testing.cluster;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/** The namespace a test class runs in, created before its first test and deleted after its last. */
public record TestNamespace(String name) {
  /**
   * Creates a namespace beside this one, named after it with {@code suffix}, for a test that needs a
   * second namespace or one without what earlier tests of its class left behind; returns its name.
   */
  public String sibling(LocalCluster cluster, String suffix) throws ApiException {
    String sibling = name + "-" + suffix;
    new CoreV1Api(cluster.adminClient()).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(sibling)))
        .execute();
    return sibling;
  }

  @Override
  public String toString() {
    return name;
  }
}
