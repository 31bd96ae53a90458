package io.steward.operator.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InstrumentedWorkQueueTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ControllerMetrics metrics = new ControllerMetrics(registry, "test", 2);
  private final InstrumentedWorkQueue queue = new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics, 2);

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

  @ParameterizedTest(name = "low priority: {0}")
  @ValueSource(booleans = {false, true})
  void anItemAddedWhileBeingProcessedComesBackAfterDone(boolean lowPriority) throws InterruptedException {
    Consumer<Request> add = lowPriority ? queue::addLowPriority : queue::add;
    Request a = new Request("ns", "a");
    add.accept(a);
    Request taken = queue.get();
    add.accept(a);
    assertThat(queue.length()).as("not handed to a second worker while in process").isZero();
    queue.done(taken);
    assertThat(queue.length()).isEqualTo(1);
    assertThat(queue.get()).isEqualTo(a);
  }

  /** What a per-bucket depth gauge reads: waiting items in the lanes and the queue, not those in a worker's hands. */
  @Test
  void waitingItemsAreCountedByWhatTheyAreFor() throws InterruptedException {
    queue.add(new Request("a", "one"));
    queue.add(new Request("a", "two"));
    queue.add(new Request("b", "three"));
    queue.addLowPriority(new Request("b", "four"));
    queue.add(new Request("b", "five"));
    assertThat(queue.countWaiting(request -> request.getNamespace().equals("b"))).isEqualTo(3);
    Request taken = queue.get();
    assertThat(queue.countWaiting(request -> true)).isEqualTo(4);
    assertThat(queue.countWaiting(request -> request.equals(taken))).isZero();
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
  void aNormalAddWaitsBehindAtMostTheLowPriorityDepth() throws InterruptedException {
    for (String name : List.of("a", "b", "c", "d", "e")) {
      queue.addLowPriority(new Request("ns", name));
    }
    queue.add(new Request("ns", "change"));
    assertThat(queue.length()).as("the lane counts as waiting").isEqualTo(6);
    assertThat(registry.get("workqueue_adds").counter().count()).isEqualTo(6);
    assertThat(drain(6)).containsExactly("a", "b", "change", "c", "d", "e");
  }

  @Test
  void aNormalAddTakesAnItemOutOfTheLowPriorityLane() throws InterruptedException {
    for (String name : List.of("a", "b", "c", "d")) {
      queue.addLowPriority(new Request("ns", name));
    }
    queue.add(new Request("ns", "d"));
    assertThat(queue.length()).isEqualTo(4);
    assertThat(drain(4)).containsExactly("a", "b", "d", "c");
    assertThat(queue.length()).isZero();
  }

  @Test
  void aLowPriorityAddOfAWaitingItemKeepsItsPlace() throws InterruptedException {
    queue.add(new Request("ns", "a"));
    queue.addLowPriority(new Request("ns", "b"));
    queue.addLowPriority(new Request("ns", "a"));
    assertThat(queue.length()).isEqualTo(2);
    assertThat(registry.get("workqueue_adds").counter().count()).isEqualTo(2);
    assertThat(drain(2)).containsExactly("a", "b");
  }

  @Test
  void aChangeInAQuietNamespaceWaitsBehindAFewItemsOfABusyOneNotBehindAll() throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      queue.add(new Request("busy", "new-" + i));
    }
    queue.add(new Request("quiet", "change"));
    assertThat(queue.length()).isEqualTo(101);

    List<String> order = drain(101);

    assertThat(order.indexOf("change")).as("items taken before it").isLessThanOrEqualTo(3);
    assertThat(order).filteredOn(name -> name.startsWith("new-")).as("one namespace's own order")
        .isSortedAccordingTo(java.util.Comparator.comparingInt(name -> Integer.parseInt(name.substring(4))));
  }

  @Test
  void namespacesTakeTurns() throws InterruptedException {
    InstrumentedWorkQueue single = new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics, 1);
    for (String name : List.of("a0", "a1", "a2")) {
      single.add(new Request("a", name));
    }
    for (String name : List.of("b0", "b1", "b2")) {
      single.add(new Request("b", name));
    }
    assertThat(drain(single, 6)).containsExactly("a0", "a1", "b0", "a2", "b1", "b2");
  }

  @Test
  void aNormalAddOfAnItemWaitingInItsNamespacesLaneKeepsItsPlace() throws InterruptedException {
    InstrumentedWorkQueue single = new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics, 1);
    for (String name : List.of("a", "b", "c")) {
      single.add(new Request("ns", name));
    }
    single.add(new Request("ns", "b"));
    assertThat(single.length()).isEqualTo(3);
    assertThat(drain(single, 3)).containsExactly("a", "b", "c");
  }

  @Test
  void anItemAddedWhileItIsWorkedOnComesBackOnceAfterItIsDone() throws InterruptedException {
    InstrumentedWorkQueue single = new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics, 1);
    single.add(new Request("ns", "a"));
    Request working = single.get();
    single.add(new Request("ns", "a"));
    single.add(new Request("ns", "a"));
    single.add(new Request("ns", "b"));
    single.done(working);
    assertThat(drain(single, 2)).containsExactlyInAnyOrder("a", "b");
    assertThat(single.length()).isZero();
  }

  @Test
  void depthMustBePositive() {
    assertThatThrownBy(() -> new InstrumentedWorkQueue(ClientGoRateLimiter.create(), metrics, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("depth");
  }

  @Test
  void shutDownEmptiesTheLowPriorityLane() throws InterruptedException {
    for (String name : List.of("a", "b", "c")) {
      queue.addLowPriority(new Request("ns", name));
    }
    queue.shutDown();
    queue.addLowPriority(new Request("ns", "d"));
    assertThat(queue.length()).as("admitted before the shutdown").isEqualTo(2);
  }

  @Test
  void shutDownReleasesWaitingWorkers() throws InterruptedException {
    queue.shutDown();
    assertThat(queue.get()).isNull();
  }

  private List<String> drain(int count) throws InterruptedException {
    return drain(queue, count);
  }

  /** Takes {@code count} items in the order workers would get them, each done at once; their names. */
  static List<String> drain(InstrumentedWorkQueue queue, int count) throws InterruptedException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Request item = queue.get();
      names.add(item.getName());
      queue.done(item);
    }
    return names;
  }
}
