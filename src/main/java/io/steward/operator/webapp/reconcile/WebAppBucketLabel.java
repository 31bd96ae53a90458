package io.steward.operator.webapp.reconcile;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.steward.operator.runtime.cache.ReadYourWritesCache;
import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.operator.webapp.api.WebApp;
import io.steward.operator.webapp.api.WebAppList;
import java.util.Map;

/**
 * Sharded mode: a WebApp carries its bucket in the label {@value BucketHash#LABEL}, set by the pass
 * of the replica that owns the bucket, before anything else is written for it. The value is
 * deterministic, so whoever sets it sets the same. The server-side fence keys on the label, and
 * the Deployment and Service get it from the WebApp ({@link io.steward.operator.webapp.WebAppLabels#ofOwned}).
 * A merge patch of that one label, without a resourceVersion: it cannot undo anyone's change.
 */
final class WebAppBucketLabel {
  private final int buckets;
  private final GenericKubernetesApi<WebApp, WebAppList> api;
  private final ReadYourWritesCache<WebApp> cache;

  /** @param buckets the number of buckets; 0 when not sharded, and then nothing is labelled */
  WebAppBucketLabel(int buckets, GenericKubernetesApi<WebApp, WebAppList> api, ReadYourWritesCache<WebApp> cache) {
    this.buckets = buckets;
    this.api = api;
    this.cache = cache;
  }

  /** The WebApp with its bucket label: as it was, or as the patch returned it. */
  WebApp ensure(WebApp webApp) {
    if (buckets == 0) {
      return webApp;
    }
    String bucket = Integer.toString(BucketHash.bucketOf(webApp.getMetadata().getNamespace(),
        webApp.getMetadata().getName(), buckets));
    Map<String, String> labels = webApp.getMetadata().getLabels();
    if (labels != null && bucket.equals(labels.get(BucketHash.LABEL))) {
      return webApp;
    }
    String patch = "{\"metadata\":{\"labels\":{\"" + BucketHash.LABEL + "\":\"" + bucket + "\"}}}";
    KubernetesApiResponse<WebApp> response = cache.write(webApp, webApp, () -> api.patch(
        webApp.getMetadata().getNamespace(), webApp.getMetadata().getName(), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        new V1Patch(patch)));
    if (!response.isSuccess()) {
      String what = "label WebApp " + webApp.getMetadata().getName() + " with its bucket";
      String message = response.getStatus() == null ? "(no message)" : response.getStatus().getMessage();
      if (response.getHttpStatusCode() == 404 || response.getHttpStatusCode() == 409) {
        throw new StaleCacheException(what + ": " + message);
      }
      throw new ApiFailureException(what, response.getHttpStatusCode(), message);
    }
    return response.getObject();
  }
}
