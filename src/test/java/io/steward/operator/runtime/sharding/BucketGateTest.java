package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.steward.operator.runtime.election.LeaseTerm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the gate does with a request, by the state of its bucket on this replica. A request it turns
 * away must either belong to someone else or come back: nothing else queues it again.
 */
class BucketGateTest {
  private static final Duration RETRY = Duration.ofSeconds(1);
  private final BucketTerms terms = new BucketTerms(8, Duration.ofSeconds(4), RETRY);
  private final Request request = new Request("team-a", "shop");
  private final int bucket = terms.bucketOf("team-a", "shop");
  private final List<String> passes = new ArrayList<>();
  private boolean owns = true;
  private boolean termValid = true;
  private boolean synced = true;

  private final BucketGate gate = new BucketGate(new BucketGate.OwnedBuckets() {
    @Override
    public boolean owns(int b) {
      return b == bucket && owns;
    }

    @Override
    public boolean accepts(int b) {
      return owns(b) && termValid;
    }
  }, terms, b -> synced, RETRY);

  private final Reconciler recording = req -> {
    passes.add(req.getName() + " in bucket " + currentBucket());
    return new Result(false);
  };

  @Test
  void aPassInsideItsTermRunsWithItsBucketBoundToTheThread() {
    LeaseTerm term = terms.termToGrant(bucket);
    term.renewed(term.now());
    Result result = gate.around(recording).reconcile(request);
    assertThat(result.isRequeue()).isFalse();
    assertThat(passes).containsExactly("shop in bucket " + bucket);
  }

  @Test
  void aRequestOfABucketOwnedElsewhereIsDropped() {
    owns = false;
    assertThat(gate.around(recording).reconcile(request).isRequeue()).isFalse();
    assertThat(passes).isEmpty();
  }

  @Test
  void aRequestOfABucketStillListingIsDroppedForTheRequeueAfterItsList() {
    synced = false;
    assertThat(gate.around(recording).reconcile(request).isRequeue()).isFalse();
    assertThat(passes).isEmpty();
  }

  /** The term may come back with a renewal still on its way, the bucket never lost: then only this retry queues it. */
  @Test
  void aRequestTurnedAwayByALapsedTermOfAnOwnedBucketComesBack() {
    termValid = false;
    Result result = gate.around(recording).reconcile(request);
    assertThat(passes).isEmpty();
    assertComesBackAfterARetryPeriod(result);
  }

  /** The fence refused the pass's writes and the runtime reported it abandoned, not failed. */
  @Test
  void aPassAbandonedWhenTheTermLapsedMidwayComesBack() {
    Reconciler lapsingMidway = req -> {
      termValid = false;
      return new Result(false);
    };
    assertComesBackAfterARetryPeriod(gate.around(lapsingMidway).reconcile(request));
  }

  @Test
  void aPassAbandonedBecauseTheBucketWasHandedOverIsLeftToTheNextOwner() {
    Reconciler handedOverMidway = req -> {
      owns = false;
      termValid = false;
      return new Result(false);
    };
    assertThat(gate.around(handedOverMidway).reconcile(request).isRequeue()).isFalse();
  }

  private static void assertComesBackAfterARetryPeriod(Result result) {
    assertThat(result.isRequeue()).isTrue();
    assertThat(result.getRequeueAfter()).isEqualTo(RETRY);
  }

  /** The bucket whose term the fence would judge a write from this thread by; -1 for none. */
  private int currentBucket() {
    okhttp3.Request write = new okhttp3.Request.Builder().url("https://127.0.0.1/apis/apps/v1/namespaces/a/deployments/x")
        .patch(okhttp3.RequestBody.create(new byte[0])).build();
    LeaseTerm term = terms.termOf(write);
    for (int b = 0; b < terms.buckets(); b++) {
      if (terms.term(b) == term) {
        return b;
      }
    }
    return -1;
  }
}
