package io.steward.operator;

import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import io.steward.operator.runtime.Tracing;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

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

  /** Whether an OTLP endpoint is configured. */
  static final class TracingOn implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return TracingAutoConfigurationFilter.tracingOn(context.getEnvironment());
    }
  }

  /**
   * Spring Boot's sampler (parent-based, {@code management.tracing.sampling.probability} of the
   * traces that start here) except that no trace starts at a request to Steward's own HTTP port:
   * those are the kubelet's probes and Prometheus' scrapes, a trace every few seconds that says
   * nothing about WebApps. Their metrics are unaffected.
   */
  @Configuration(proxyBeanMethods = false)
  @Conditional(TracingOn.class)
  static class Sampling {
    @Bean
    Sampler stewardSampler(Environment environment) {
      double probability = environment.getProperty("management.tracing.sampling.probability", Double.class, 0.1);
      return Sampler.parentBased(new NoServerRoots(Sampler.traceIdRatioBased(probability)));
    }
  }

  static final class NoServerRoots implements Sampler {
    private final Sampler roots;

    NoServerRoots(Sampler roots) {
      this.roots = roots;
    }

    @Override
    public SamplingResult shouldSample(Context parentContext, String traceId, String name, SpanKind spanKind,
        Attributes attributes, List<LinkData> parentLinks) {
      return spanKind == SpanKind.SERVER ? SamplingResult.drop()
          : roots.shouldSample(parentContext, traceId, name, spanKind, attributes, parentLinks);
    }

    @Override
    public String getDescription() {
      return "NoServerRoots{" + roots.getDescription() + "}";
    }
  }
}
