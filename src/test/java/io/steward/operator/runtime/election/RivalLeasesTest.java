package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the other mode's Leases stop counting (pure logic, a fake monotonic clock). */
class RivalLeasesTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private Duration answerTakes = Duration.ZERO;
  private final RivalLeases rivals = new RivalLeases(() -> {
    nanos.addAndGet(answerTakes.toNanos());
    return List.of(new V1Lease().metadata(new V1ObjectMeta().name("steward-bucket-3").resourceVersion("17"))
        .spec(new V1LeaseSpec().holderIdentity("sharded-a")));
  }, Duration.ofSeconds(6), nanos::get);

  @Test
  void aHeldLeaseCountsForALeaseDurationAfterTheAnswerThatFirstShowedIt() throws Exception {
    answerTakes = Duration.ofSeconds(2); // its holder may have renewed while the read was on its way
    assertThat(rivals.read().anyHeld()).isTrue();
    answerTakes = Duration.ZERO;
    nanos.addAndGet(Duration.ofMillis(5999).toNanos());
    assertThat(rivals.read().anyHeld()).as("eight seconds after the first read's send, six after its answer").isTrue();
    nanos.addAndGet(Duration.ofMillis(1).toNanos());
    assertThat(rivals.read().anyHeld()).isFalse();
  }
}
