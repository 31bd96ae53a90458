package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingDecision;
import io.steward.operator.runtime.Tracing;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class TracingConfigurationTest {
  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withUserConfiguration(TracingConfiguration.class);

  private static SamplingDecision decide(Sampler sampler, SpanKind kind) {
    return sampler.shouldSample(Context.root(), TRACE_ID, "span", kind, Attributes.empty(), List.of()).getDecision();
  }

  @Test
  void offThereIsNoSamplerAndTheRuntimeIsNotTraced() {
    runner.run(context -> {
      assertThat(context).doesNotHaveBean(Sampler.class);
      assertThat(context.getBean(Tracing.class).isOn()).isFalse();
    });
  }

  @Test
  void onNoTraceStartsAtAServerRequestAndTheRestFollowSpringBootsProbability() {
    runner.withPropertyValues("management.opentelemetry.tracing.export.otlp.endpoint=http://127.0.0.1:4318/v1/traces",
        "management.tracing.sampling.probability=1.0").run(context -> {
          Sampler sampler = context.getBean(Sampler.class);
          assertThat(decide(sampler, SpanKind.SERVER)).isEqualTo(SamplingDecision.DROP);
          assertThat(decide(sampler, SpanKind.INTERNAL)).isEqualTo(SamplingDecision.RECORD_AND_SAMPLE);
          assertThat(decide(sampler, SpanKind.CLIENT)).isEqualTo(SamplingDecision.RECORD_AND_SAMPLE);
        });
    runner.withPropertyValues("management.opentelemetry.tracing.export.otlp.endpoint=http://127.0.0.1:4318/v1/traces",
        "management.tracing.sampling.probability=0.0").run(context ->
          assertThat(decide(context.getBean(Sampler.class), SpanKind.INTERNAL)).isEqualTo(SamplingDecision.DROP));
  }
}
