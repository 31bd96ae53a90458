package io.steward.operator.runtime.sharding;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.runtime.cache.WatchedKind;
import io.steward.operator.runtime.support.Daemons;
import io.steward.operator.runtime.support.LogSafe;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded mode: an object whose bucket label names another bucket than the one its name belongs to
 * (a manifest copied with its labels from another object, a label edited by hand) would never be
 * reconciled: the owner of its name's bucket does not see it (its informers select its buckets'
 * label, or none), and the replica that sees it does not own its name. That replica removes the
 * label, under the term of the bucket the label names, which it holds; the object then shows in
 * every replica's informer of unlabelled objects, and the owner of its name's bucket labels it as a
 * new one. A replica that sees it before it holds that bucket (listing ahead) tries again every retry
 * period while its informer still holds the object.
 */
public final class MisfiledObjects implements BucketInformers.MisfiledListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MisfiledObjects.class);
  private static final V1Patch REMOVE_LABEL =
      new V1Patch("{\"metadata\":{\"labels\":{\"" + BucketHash.LABEL + "\":null}}}");

  private final ApiClient client;
  private final int buckets;
  private final Duration retryPeriod;
  private final Counter corrected;
  private final Set<String> correcting = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService executor = Daemons.scheduler("misfiled-objects");

  public MisfiledObjects(ApiClient client, int buckets, Duration retryPeriod, MeterRegistry registry) {
    this.client = client;
    this.buckets = buckets;
    this.retryPeriod = retryPeriod;
    this.corrected = Counter.builder("steward_shard_misfiled_labels_removed")
        .description("Bucket labels removed from objects whose name belongs to another bucket").register(registry);
  }

  @Override
  public void misfiled(WatchedKind<?, ?> kind, KubernetesObject object, int labelled, BooleanSupplier stillThere) {
    String namespace = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    String what = kind.kind() + " " + (namespace == null ? name : namespace + "/" + name);
    if (!correcting.add(what)) {
      return;
    }
    int belongs = BucketHash.bucketOf(namespace, name, buckets);
    log.warn("{} is labelled {}={}, but its name belongs to bucket {}: removing the label, so that the owner of "
        + "that bucket takes it (was it copied with its labels?)", what, BucketHash.LABEL, labelled, belongs);
    executor.execute(() -> removeLabel(kind, namespace, name, labelled, stillThere, what));
  }

  private void removeLabel(WatchedKind<?, ?> kind, String namespace, String name, int labelled,
      BooleanSupplier stillThere, String what) {
    if (!stillThere.getAsBoolean()) {
      correcting.remove(what);
      return;
    }
    int code;
    try {
      code = BucketTerms.within(labelled, () -> patch(kind, namespace, name).getHttpStatusCode());
    } catch (RuntimeException e) {
      code = -1;
      log.debug("{}: label not removed yet ({})", what, LogSafe.describe(e));
    }
    if (code >= 200 && code < 300 || code == 404) {
      correcting.remove(what);
      if (code != 404) {
        corrected.increment();
        log.info("{}: bucket label removed", what);
      }
      return;
    }
    // Refused: this replica does not hold the labelled bucket yet (listed ahead), or a failure.
    executor.schedule(() -> removeLabel(kind, namespace, name, labelled, stillThere, what),
        retryPeriod.toMillis(), TimeUnit.MILLISECONDS);
  }

  private <T extends KubernetesObject, L extends KubernetesListObject> KubernetesApiResponse<T> patch(
      WatchedKind<T, L> kind, String namespace, String name) {
    GenericKubernetesApi<T, L> api = kind.api(client);
    return namespace == null ? api.patch(name, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, REMOVE_LABEL)
        : api.patch(namespace, name, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, REMOVE_LABEL);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
