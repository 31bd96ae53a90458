package io.steward.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class InstrumentedReconcilerTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ControllerMetrics metrics = new ControllerMetrics(registry, "webapp", 1);
  private final Request request = new Request("ns", "shop");

  private double errors() {
    return registry.get("controller_runtime_reconcile_errors").counter().count();
  }

  @Test
  void aTerminalFailureIsCountedAsAnErrorButNotRetried() {
    Result result = new InstrumentedReconciler(r -> {
      throw new TerminalException("the API server refused the Deployment");
    }, "WebApp", metrics, new ReconcilesInFlight()).reconcile(request);

    assertThat(result.isRequeue()).isFalse();
    assertThat(errors()).isEqualTo(1);
  }

  @Test
  void anyOtherFailureIsRetriedWithBackOff() {
    Result result = new InstrumentedReconciler(r -> {
      throw new IllegalStateException("HTTP 503");
    }, "WebApp", metrics, new ReconcilesInFlight()).reconcile(request);

    assertThat(result.isRequeue()).isTrue();
    assertThat(result.getRequeueAfter()).isNull();
    assertThat(errors()).isEqualTo(1);
  }
}
