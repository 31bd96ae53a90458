package io.steward.operator;

import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.boot.autoconfigure.AutoConfigurationMetadata;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Tracing is on exactly when an OTLP endpoint is configured. Without one, Spring Boot's tracing and
 * OpenTelemetry auto-configurations are left out altogether: no SDK, no tracer, no exporter, and no
 * tracing handler on any observation (Spring MVC's included), so tracing off costs nothing. With
 * one, they apply as Spring Boot documents them ({@code management.tracing.*},
 * {@code management.opentelemetry.*}). Registered in {@code META-INF/spring.factories}.
 */
public final class TracingAutoConfigurationFilter implements AutoConfigurationImportFilter, EnvironmentAware {
  /** Spring Boot 4's name for the endpoint (Spring Boot 3's management.otlp.tracing.endpoint is no longer read). */
  static final String ENDPOINT = "management.opentelemetry.tracing.export.otlp.endpoint";
  private static final List<String> TRACING_PACKAGES = List.of("org.springframework.boot.micrometer.tracing.",
      "org.springframework.boot.opentelemetry.");

  private Environment environment;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  static boolean tracingOn(Environment environment) {
    return StringUtils.hasText(environment.getProperty(ENDPOINT));
  }

  @Override
  public boolean[] match(String[] autoConfigurationClasses, AutoConfigurationMetadata metadata) {
    boolean on = tracingOn(environment);
    boolean[] matches = new boolean[autoConfigurationClasses.length];
    for (int i = 0; i < autoConfigurationClasses.length; i++) {
      String candidate = autoConfigurationClasses[i];
      matches[i] = on || candidate == null || TRACING_PACKAGES.stream().noneMatch(candidate::startsWith);
    }
    return matches;
  }
}
