package io.steward.operator;

import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import io.steward.operator.runtime.controller.Tracing;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Traces, opt-in: with an OTLP endpoint configured (see {@link TracingAutoConfigurationFilter}),
 * the runtime's reconciles and the API requests they send are observed on Spring's
 * {@link ObservationRegistry}, whose tracing handler makes them spans; without one, on none.
 */
@Configuration(proxyBeanMethods = false)
public class TracingConfiguration {

  @Bean
  Tracing tracing(Environment environment, ObjectProvider<ObservationRegistry> registry) {
    return TracingAutoConfigurationFilter.tracingOn(environment)
        ? new Tracing(registry.getIfAvailable(() -> ObservationRegistry.NOOP)) : Tracing.off();
  }

  @Bean
  MeterFilter noTracingTimers() {
    return Tracing.noTimers();
  }
}
