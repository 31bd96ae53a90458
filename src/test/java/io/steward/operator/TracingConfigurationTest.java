package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.ObservationRegistry;
import io.steward.operator.runtime.controller.Tracing;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class TracingConfigurationTest {
  /** With a registry that has a handler, as Spring Boot's tracing auto-configuration gives it one. */
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withUserConfiguration(TracingConfiguration.class).withBean(ObservationRegistry.class, () -> {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(context -> true);
        return registry;
      });

  @Test
  void offTheRuntimeIsNotTraced() {
    runner.run(context -> assertThat(context.getBean(Tracing.class).isOn()).isFalse());
  }

  @Test
  void onWithAnOtlpEndpointTheRuntimeIsTraced() {
    runner.withPropertyValues("management.opentelemetry.tracing.export.otlp.endpoint=http://127.0.0.1:4318/v1/traces")
        .run(context -> assertThat(context.getBean(Tracing.class).isOn()).isTrue());
  }
}
