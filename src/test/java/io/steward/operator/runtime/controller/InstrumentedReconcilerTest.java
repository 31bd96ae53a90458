package io.steward.operator.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.steward.operator.runtime.support.WorkInFlight;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
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
    }, "WebApp", metrics, new WorkInFlight()).reconcile(request);

    assertThat(result.isRequeue()).isFalse();
    assertThat(errors()).isEqualTo(1);
  }

  @Test
  void anyOtherFailureIsRetriedWithBackOff() {
    Result result = new InstrumentedReconciler(r -> {
      throw new IllegalStateException("HTTP 503");
    }, "WebApp", metrics, new WorkInFlight()).reconcile(request);

    assertThat(result.isRequeue()).isTrue();
    assertThat(result.getRequeueAfter()).isNull();
    assertThat(errors()).isEqualTo(1);
  }

  /** Observations as a tracing handler would see them when they stop, with the one current meanwhile. */
  private static final class Recorded implements ObservationHandler<Observation.Context> {
    final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    @Override
    public void onStop(Observation.Context context) {
      stopped.add(context);
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }
  }

  private static Map<String, String> keyValues(Observation.Context context) {
    return context.getAllKeyValues().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
  }

  @Test
  void withTracingEachPassIsOneObservationWithKeyGenerationAndResultInScopeWhileItRuns() {
    ObservationRegistry observations = ObservationRegistry.create();
    Recorded recorded = new Recorded();
    observations.observationConfig().observationHandler(recorded);
    V1ConfigMap cached = new V1ConfigMap().metadata(new V1ObjectMeta().namespace("ns").name("shop").generation(4L));
    List<Observation> currentDuringPass = new CopyOnWriteArrayList<>();

    InstrumentedReconciler reconciler = new InstrumentedReconciler(r -> {
      currentDuringPass.add(observations.getCurrentObservation());
      return new Result(false);
    }, "WebApp", metrics, new WorkInFlight(), new Tracing(observations),
        (namespace, name) -> namespace.equals("ns") && name.equals("shop") ? cached : null);
    reconciler.reconcile(request);

    assertThat(recorded.stopped).singleElement().satisfies(context -> {
      assertThat(context.getName()).isEqualTo(Tracing.RECONCILE);
      assertThat(context.getContextualName()).isEqualTo("reconcile WebApp");
      assertThat(keyValues(context)).containsEntry("key", "ns/shop").containsEntry("generation", "4")
          .containsEntry("result", "success").containsEntry("kind", "WebApp");
      assertThat(context.getError()).isNull();
    });
    // Requests sent during the pass find it current: that is what makes them its children.
    assertThat(currentDuringPass).singleElement().isNotNull()
        .satisfies(o -> assertThat(o.getContext()).isSameAs(recorded.stopped.get(0)));
    assertThat(observations.getCurrentObservation()).isNull();
  }

  @Test
  void withTracingAFailedPassCarriesItsErrorAndResult() {
    ObservationRegistry observations = ObservationRegistry.create();
    Recorded recorded = new Recorded();
    observations.observationConfig().observationHandler(recorded);
    IllegalStateException failure = new IllegalStateException("HTTP 503");

    new InstrumentedReconciler(r -> {
      throw failure;
    }, "WebApp", metrics, new WorkInFlight(), new Tracing(observations), (namespace, name) -> null)
        .reconcile(request);

    assertThat(recorded.stopped).singleElement().satisfies(context -> {
      assertThat(keyValues(context)).containsEntry("result", "error").containsEntry("key", "ns/shop")
          .doesNotContainKey("generation");
      assertThat(context.getError()).isSameAs(failure);
    });
  }

  @Test
  void withTracingOffAPassLooksNothingUpAndOpensNoObservation() {
    AtomicInteger lookups = new AtomicInteger();
    List<Observation> currentDuringPass = new CopyOnWriteArrayList<>();
    Result result = new InstrumentedReconciler(r -> {
      currentDuringPass.add(ObservationRegistry.NOOP.getCurrentObservation());
      return new Result(false);
    }, "WebApp", metrics, new WorkInFlight(), Tracing.off(), (namespace, name) -> {
      lookups.incrementAndGet();
      return null;
    }).reconcile(request);

    assertThat(result.isRequeue()).isFalse();
    assertThat(lookups).hasValue(0);
    assertThat(currentDuringPass).containsExactly((Observation) null);
    assertThat(registry.get("controller_runtime_reconcile").tag("result", "success").counter().count()).isEqualTo(1);
  }
}
