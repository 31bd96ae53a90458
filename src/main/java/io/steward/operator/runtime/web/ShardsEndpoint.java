package io.steward.operator.runtime.web;

import io.steward.operator.runtime.sharding.BucketInformers;
import io.steward.operator.runtime.sharding.BucketOwnership;
import io.steward.operator.runtime.sharding.BucketTerms;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/shards}: in sharded mode, this replica's buckets and the term left in each, the
 * live members it sees, and the whole assignment (who should own each bucket, and who holds its
 * Lease as last read), and the buckets each of its bucket informers lists and watches
 * ({@link BucketInformers#bucketGroups}). Answered from what the ownership thread already knows: a probe sends nothing.
 * In single-leader mode there is no ownership, and the endpoint answers 404 Not Found.
 */
@Endpoint(id = "shards")
public final class ShardsEndpoint {
  private final BucketOwnership ownership;
  private final BucketTerms terms;
  private final BucketInformers informers;

  /** All null in single-leader mode. */
  public ShardsEndpoint(BucketOwnership ownership, BucketTerms terms, BucketInformers informers) {
    this.ownership = ownership;
    this.terms = terms;
    this.informers = informers;
  }

  @ReadOperation
  public Map<String, Object> shards() {
    if (ownership == null) {
      return null; // Actuator's answer to null: 404
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("identity", ownership.identity());
    result.put("buckets", ownership.buckets());
    Map<Integer, Long> owned = new TreeMap<>();
    ownership.owned().forEach(bucket -> owned.put(bucket, terms.term(bucket).remaining().toMillis()));
    result.put("owned", owned.keySet());
    result.put("termRemainingMillis", owned);
    result.put("liveMembers", ownership.liveMembers());
    result.put("assignment", ownership.assignment());
    result.put("holders", ownership.holders());
    result.put("informerGroups", informers.bucketGroups());
    return result;
  }
}
