package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.classreading.CachingMetadataReaderFactory;

/** When the image's prepared bean definitions stand, and when Steward sets them aside. */
class PreparedBeanSetTest {
  private static final String PACKAGED =
      "Config resource 'class path resource [application.yaml]' via location 'optional:classpath:/'";

  @Test
  void whatThePodsOfTheChartSetKeepsThePreparedBeans() {
    StandardEnvironment environment = environment(Map.of("SERVER_PORT", "8081", "STEWARD_SHARDING_ENABLED", "false",
        "STEWARD_WORKERS", "8", "LOGGING_LEVEL_IO_STEWARD", "INFO", "KUBERNETES_SERVICE_HOST", "10.0.0.1",
        "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=50", "POD_NAME", "steward-0"));
    environment.getPropertySources().addFirst(new MapPropertySource("systemProperties",
        Map.of("spring.aot.enabled", "true", "java.version", "17", "user.home", "/")));
    environment.getPropertySources().addLast(new MapPropertySource(PACKAGED,
        Map.of("management.endpoints.web.exposure.include", "health", "server.shutdown", "graceful")));
    environment.getPropertySources().addLast(new MapPropertySource("applicationInfo",
        Map.of("spring.application.version", "0.1.0", "spring.application.pid", "7")));
    assertThat(PreparedBeanSet.reasonToResolveAtStart(environment)).isEmpty();
  }

  @Test
  void theTrainingRunOfTheImageKeepsThem() {
    StandardEnvironment environment = environment(Map.of("KUBECONFIG", "/tmp/cds-training.kubeconfig"));
    environment.getPropertySources().addFirst(new MapPropertySource("systemProperties",
        Map.of("spring.aot.enabled", "true", "spring.context.exit", "onRefresh")));
    assertThat(PreparedBeanSet.reasonToResolveAtStart(environment)).isEmpty();
  }

  @Test
  void shardingOnKeepsThemFromAnySource() {
    assertThat(PreparedBeanSet.reasonToResolveAtStart(environment(Map.of("STEWARD_SHARDING_ENABLED", "true"))))
        .isEmpty();
    StandardEnvironment arguments = environment(Map.of());
    arguments.getPropertySources().addFirst(new SimpleCommandLinePropertySource("--steward.sharding.enabled=TRUE"));
    assertThat(PreparedBeanSet.reasonToResolveAtStart(arguments)).isEmpty();
  }

  @Test
  void springBootSettingsFromOutsideTheJarSetThemAside() {
    assertThat(PreparedBeanSet.reasonToResolveAtStart(
        environment(Map.of("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT", "http://collector:4318"))))
        .hasValueSatisfying(reason -> assertThat(reason)
            .isEqualTo("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT is set (systemEnvironment)"));
    StandardEnvironment file = environment(Map.of());
    file.getPropertySources().addLast(new MapPropertySource(
        "Config resource 'file [config/application.yaml]' via location 'optional:file:./config/'",
        Map.of("management.endpoints.web.exposure.include", "*")));
    assertThat(PreparedBeanSet.reasonToResolveAtStart(file)).hasValueSatisfying(reason ->
        assertThat(reason).startsWith("management.endpoints.web.exposure.include is set (Config resource 'file"));
    StandardEnvironment profile = environment(Map.of());
    profile.setActiveProfiles("debug");
    assertThat(PreparedBeanSet.reasonToResolveAtStart(profile)).contains("profiles debug are active");
  }

  /**
   * Steward's own configuration classes select beans by no property the guard does not read (it
   * reads no {@code steward.} property: a sharded replica starts with the prepared definitions) and
   * by no other condition; tracing's auto-configurations are chosen by a {@code management.} property,
   * which the guard sees.
   */
  @Test
  void theGuardKnowsEveryConditionInStewardsConfiguration() throws Exception {
    Set<String> properties = new HashSet<>();
    List<String> otherConditions = new ArrayList<>();
    CachingMetadataReaderFactory readers = new CachingMetadataReaderFactory();
    for (Resource resource : new PathMatchingResourcePatternResolver().getResources(
        "classpath*:io/steward/operator/**/*.class")) {
      if (!resource.getURL().toString().contains("/classes/io/steward/")) {
        continue; // the main classes only, not the tests'
      }
      AnnotationMetadata type = readers.getMetadataReader(resource).getAnnotationMetadata();
      List<MergedAnnotations> annotated = new ArrayList<>(List.of(type.getAnnotations()));
      type.getDeclaredMethods().forEach(method -> annotated.add(method.getAnnotations()));
      for (MergedAnnotations annotations : annotated) {
        annotations.stream(ConditionalOnProperty.class)
            .forEach(condition -> properties.addAll(List.of(condition.getStringArray("name"))));
        annotations.stream(Conditional.class).filter(MergedAnnotation::isDirectlyPresent)
            .forEach(condition -> otherConditions.add(type.getClassName()));
      }
    }
    assertThat(properties).as("properties of @ConditionalOnProperty in Steward's classes that the guard does not read")
        .allMatch(property -> PreparedBeanSet.SPRING_NAMESPACES.stream().anyMatch(property::startsWith));
    assertThat(otherConditions).isEmpty();
    assertThat(TracingAutoConfigurationFilter.ENDPOINT).startsWith("management.");
  }

  private static StandardEnvironment environment(Map<String, Object> variables) {
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
    environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
        new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
    return environment;
  }
}
