package io.steward.operator.runtime.sharding;

import io.kubernetes.client.common.KubernetesObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The bucket of an object in sharded mode: FNV-1a 64 of {@code namespace/name}, modulo the number of
 * buckets. Stable across processes, restarts and versions (it is what the label on every object and
 * the server-side fence rely on), so never change it without migrating the labels.
 */
public final class BucketHash {
  /** The label that carries an object's bucket, and a bucket Lease's. */
  public static final String LABEL = "steward.io/bucket";

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private BucketHash() {}

  public static int bucketOf(String namespace, String name, int buckets) {
    return (int) Long.remainderUnsigned(fnv1a64(namespace + "/" + name), buckets);
  }

  /** The bucket an object's label names, -1 if it has none or not a number. */
  public static int labelled(KubernetesObject object) {
    Map<String, String> labels = object.getMetadata() == null ? null : object.getMetadata().getLabels();
    String value = labels == null ? null : labels.get(LABEL);
    if (value == null) {
      return -1;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  public static long fnv1a64(String text) {
    long hash = FNV_OFFSET;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= FNV_PRIME;
    }
    return hash;
  }
}
