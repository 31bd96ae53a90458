package io.steward.operator.support;

import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.CreateOptions;
import io.steward.operator.deploy.Manifests;
import io.steward.operator.deploy.StewardChart;
import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.operator.webapp.api.WebApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sharded mode's bucket-labelling MutatingAdmissionPolicy and its binding as the chart renders them
 * (sharding.labelAtAdmission), put on a cluster for a test or a benchmark and taken off again.
 */
public final class BucketLabelPolicy implements AutoCloseable {
  private static final List<String> KINDS = List.of("MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding");
  private final ApiClient admin;
  private final List<Map<String, Object>> objects;

  private BucketLabelPolicy(ApiClient admin, List<Map<String, Object>> objects) {
    this.admin = admin;
    this.objects = objects;
  }

  /**
   * Renders the chart as release {@code release} with {@code buckets} and {@code namespaces} as its
   * watched namespaces, creates the policy and its binding, and waits until a dry-run create in each
   * namespace comes back labelled (a policy takes effect a moment after it is created, a CRD just created a moment after that).
   */
  public static BucketLabelPolicy install(ApiClient admin, String release, int buckets, List<String> namespaces) {
    Manifests chart = StewardChart.template(release, "steward-system", Map.of(
        "sharding", Map.of("enabled", true, "buckets", buckets, "labelAtAdmission", true),
        "watchNamespaces", namespaces));
    List<Map<String, Object>> objects = new ArrayList<>();
    BucketLabelPolicy policy = new BucketLabelPolicy(admin, objects);
    for (String kind : KINDS) {
      Map<String, Object> object = chart.single(kind, "bucket-label");
      KubernetesApiResponse<DynamicKubernetesObject> created = api(admin, kind).create(new DynamicKubernetesObject(Manifests.json(object)));
      if (!created.isSuccess()) {
        policy.close();
        throw new IllegalStateException("create " + kind + ": " + created.getStatus());
      }
      objects.add(object);
    }
    for (String ns : namespaces) {
      WebApps webApps = new WebApps(admin, ns);
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
        WebApp probe = webApps.api().create(new WebApp().metadata(new V1ObjectMeta().name("probe").namespace(ns))
            .spec(WebApps.spec("nginx:1.27", 1, 80)), new CreateOptions().dryRun("All")).throwsApiException().getObject();
        return probe.getMetadata().getLabels() != null && probe.getMetadata().getLabels().containsKey(BucketHash.LABEL);
      });
    }
    return policy;
  }

  @Override
  public void close() {
    for (Map<String, Object> object : objects) {
      api(admin, (String) object.get("kind")).delete(Manifests.name(object));
    }
  }

  private static DynamicKubernetesApi api(ApiClient admin, String kind) {
    String plural = kind.equals("MutatingAdmissionPolicy") ? "mutatingadmissionpolicies" : "mutatingadmissionpolicybindings";
    return new DynamicKubernetesApi("admissionregistration.k8s.io", "v1", plural, admin);
  }
}
