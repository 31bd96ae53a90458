package io.steward.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class InstrumentedWorkQueueTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ControllerMetrics metrics = new ControllerMetrics(registry, "test", 2);
  private final InstrumentedWorkQueue queue = new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics);

  @Test
  void duplicateAddsOfAWaitingItemCollapseToOne() throws InterruptedException {
    Request a = new Request("ns", "a");
    queue.add(a);
    queue.add(new Request("ns", "a"));
    assertThat(queue.length()).isEqualTo(1);
    assertThat(registry.get("workqueue_adds").counter().count()).isEqualTo(1);
    assertThat(queue.get()).isEqualTo(a);
    queue.done(a);
    assertThat(registry.get("workqueue_queue_duration").timer().count()).isEqualTo(1);
    assertThat(registry.get("workqueue_work_duration").timer().count()).isEqualTo(1);
  }

  @Test
  void anItemAddedWhileBeingProcessedComesBackAfterDone() throws InterruptedException {
    Request a = new Request("ns", "a");
    queue.add(a);
    Request taken = queue.get();
    queue.add(a);
    assertThat(queue.length()).as("not handed to a second worker while in process").isZero();
    queue.done(taken);
    assertThat(queue.length()).isEqualTo(1);
  }

  @Test
  void rateLimitedAddsAreCountedAsRetriesAndArriveLater() throws InterruptedException {
    queue.addRateLimited(new Request("ns", "b"));
    assertThat(registry.get("workqueue_retries").counter().count()).isEqualTo(1);
    long start = System.nanoTime();
    assertThat(queue.get()).isEqualTo(new Request("ns", "b"));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void shutDownReleasesWaitingWorkers() throws InterruptedException {
    queue.shutDown();
    assertThat(queue.get()).isNull();
  }
}
