package io.steward.operator.runtime.election;

import okhttp3.Request;

/**
 * Which {@link LeaseTerm} a write is judged by: the leader's one term, or, in sharded mode, the term
 * of the bucket the write is for. Null means the write belongs to no term and is refused.
 */
@FunctionalInterface
public interface WriteTerms {
  LeaseTerm termOf(Request request);

  /** Every write is judged by the one {@code term} (single leader, or no election). */
  static WriteTerms single(LeaseTerm term) {
    return request -> term;
  }
}
