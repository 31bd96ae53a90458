package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.mock.env.MockEnvironment;

/** Tracing off means Spring Boot's tracing and OpenTelemetry auto-configurations are not even considered. */
class TracingAutoConfigurationFilterTest {
  private final List<String> candidates = new ArrayList<>();
  {
    ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).forEach(candidates::add);
  }

  private static boolean aboutTracing(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.contains("tracing") || lower.contains("opentelemetry");
  }

  private List<String> kept(MockEnvironment environment) {
    TracingAutoConfigurationFilter filter = new TracingAutoConfigurationFilter();
    filter.setEnvironment(environment);
    String[] names = candidates.toArray(String[]::new);
    boolean[] matches = filter.match(names, null);
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < names.length; i++) {
      if (matches[i]) {
        kept.add(names[i]);
      }
    }
    return kept;
  }

  @Test
  void withoutAnEndpointEveryTracingAutoConfigurationIsLeftOut() {
    List<String> tracing = candidates.stream().filter(TracingAutoConfigurationFilterTest::aboutTracing).toList();
    // The SDK, the tracer, the OTLP exporter, Micrometer's tracing handlers, log export, exemplars.
    assertThat(tracing).hasSizeGreaterThanOrEqualTo(6);
    List<String> kept = kept(new MockEnvironment());
    assertThat(kept).noneMatch(TracingAutoConfigurationFilterTest::aboutTracing);
    assertThat(kept).hasSize(candidates.size() - tracing.size())
        .contains("org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration");
  }

  @Test
  void anEndpointTurnsThemOn() {
    assertThat(kept(new MockEnvironment().withProperty("management.opentelemetry.tracing.export.otlp.endpoint",
        "http://127.0.0.1:4318/v1/traces"))).containsExactlyElementsOf(candidates);
    // Spring Boot 3's name, which Spring Boot 4 refuses to read: it would turn tracing on with no exporter.
    assertThat(kept(new MockEnvironment().withProperty("management.otlp.tracing.endpoint",
        "http://127.0.0.1:4318/v1/traces"))).noneMatch(TracingAutoConfigurationFilterTest::aboutTracing);
    assertThat(kept(new MockEnvironment().withProperty("management.opentelemetry.tracing.export.otlp.endpoint", " ")))
        .noneMatch(TracingAutoConfigurationFilterTest::aboutTracing);
  }

  @Test
  void springBootFindsTheFilter() {
    assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(AutoConfigurationImportFilter.class))
        .hasAtLeastOneElementOfType(TracingAutoConfigurationFilter.class);
  }
}
