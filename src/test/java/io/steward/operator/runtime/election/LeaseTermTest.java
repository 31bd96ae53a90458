package io.steward.operator.runtime.election;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaseTermTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final LeaseTerm term = LeaseTerm.forLease(Duration.ofSeconds(4), Duration.ofSeconds(1), nanos::get);

  @Test
  void noTermBeforeTheFirstRenewal() {
    assertThat(term.isValid()).isFalse();
    assertThat(term.isOver()).isFalse();
  }

  @Test
  void aTermRunsFromTheRenewalsSendInstantNotItsAnswer() {
    long sent = term.now();
    nanos.addAndGet(Duration.ofMillis(3000).toNanos()); // a slow answer
    term.renewed(sent);
    assertThat(term.length()).isEqualTo(Duration.ofMillis(3500));
    assertThat(term.remaining()).isEqualTo(Duration.ofMillis(500));
    nanos.addAndGet(Duration.ofMillis(499).toNanos());
    assertThat(term.isValid()).isTrue();
    nanos.addAndGet(Duration.ofMillis(1).toNanos());
    assertThat(term.isValid()).isFalse();
    assertThat(term.isOver()).isTrue();
  }

  @Test
  void aRevokedTermComesBackOnlyFromAWriteSentAfterTheRevocation() {
    long before = term.now();
    term.renewed(before);
    nanos.addAndGet(Duration.ofMillis(10).toNanos());
    long inFlight = term.now();
    nanos.addAndGet(Duration.ofMillis(10).toNanos());
    term.revoke();
    assertThat(term.isValid()).isFalse();
    term.renewed(inFlight); // sent before the revocation, answered after it
    assertThat(term.isValid()).isFalse();
    nanos.addAndGet(Duration.ofMillis(10).toNanos());
    term.renewed(term.now()); // a later take
    assertThat(term.isValid()).isTrue();
    assertThat(term.hasEnded()).isFalse();
  }

  @Test
  void aPauseLongerThanTheTermEndsIt() {
    term.renewed(term.now());
    nanos.addAndGet(Duration.ofSeconds(12).toNanos()); // SIGSTOP, GC or a frozen VM
    assertThat(term.isValid()).isFalse();
  }

  @Test
  void anOlderRenewalAnsweredLateDoesNotShortenTheTerm() {
    long first = term.now();
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    long second = term.now();
    term.renewed(second);
    term.renewed(first);
    assertThat(term.remaining()).isEqualTo(Duration.ofMillis(3500));
  }

  @Test
  void anEndedTermStaysEndedEvenIfARenewalInFlightSucceeds() {
    long sent = term.now();
    term.renewed(sent);
    term.end();
    term.renewed(sent);
    assertThat(term.isValid()).isFalse();
  }

  @Test
  void theMarginLeavesRoomForARenewalWhenTheDeadlineIsCloseToTheRetryPeriod() {
    LeaseTerm tight = LeaseTerm.forLease(Duration.ofMillis(1200), Duration.ofSeconds(1), nanos::get);
    assertThat(tight.length()).isEqualTo(Duration.ofMillis(1100));
  }

  @Test
  void withoutLeaderElectionTheOnlyReplicaMayAlwaysWrite() {
    LeaseTerm unfenced = LeaseTerm.unfenced();
    assertThat(unfenced.isValid()).isTrue();
    assertThat(unfenced.isOver()).isFalse();
  }
}
