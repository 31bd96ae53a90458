package io.steward.operator;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.springframework.aot.AotDetector;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.support.DefaultLifecycleProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.SpringProperties;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The image starts Steward with the bean definitions Spring AOT prepared when the jar was built
 * ({@code spring.aot.enabled=true}): no configuration classes to parse and no conditions to evaluate
 * at start. Those conditions were evaluated once, against the packaged {@code application.yaml}, so a
 * property that selects beans (tracing, a management port, a profile) would be silently ignored.
 * Before the context is created, this sets the prepared definitions aside whenever the environment
 * sets such a property, and Spring resolves the bean set at start as it does without AOT: a slower
 * start, never a different operator. Steward's own settings select no beans by a condition (the
 * sharded mode's beans choose as they are made, see {@link ShardingConfiguration}), so they keep the
 * prepared definitions. Registered in {@code META-INF/spring.factories}.
 */
public final class PreparedBeanSet implements EnvironmentPostProcessor, Ordered {
  /** Where Spring Boot's conditions read (auto-configuration, Actuator, the web server, profiles). */
  static final List<String> SPRING_NAMESPACES = List.of("spring.", "management.", "server.");
  /** Names there that give a value and select nothing, and Spring's switches for AOT and a training run. */
  static final Set<String> VALUES_ONLY = Set.of("server.port", "server.address", "management.server.port",
      "management.server.address", AotDetector.AOT_ENABLED, DefaultLifecycleProcessor.EXIT_PROPERTY_NAME);
  /** How Spring Boot names what it loaded from the jar's own application.yaml. */
  private static final String PACKAGED = "Config resource 'class path resource [";
  /** What Spring Boot adds itself: a view over every other source, and the version and pid. */
  private static final Set<String> SPRING_BOOTS_OWN = Set.of("configurationProperties", "applicationInfo");

  private final Log log;

  public PreparedBeanSet(DeferredLogFactory logs) {
    this.log = logs.getLog(PreparedBeanSet.class);
  }

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (!AotDetector.useGeneratedArtifacts()) {
      return;
    }
    reasonToResolveAtStart(environment).ifPresent(reason -> {
      SpringProperties.setProperty(AotDetector.AOT_ENABLED, "false");
      log.info("Bean definitions resolved at start, not those prepared at build time: " + reason);
    });
  }

  /** Why the prepared bean set may not be this environment's, if it may not. */
  static Optional<String> reasonToResolveAtStart(ConfigurableEnvironment environment) {
    if (environment.getActiveProfiles().length > 0) {
      return Optional.of("profiles " + String.join(",", environment.getActiveProfiles()) + " are active");
    }
    for (PropertySource<?> source : environment.getPropertySources()) {
      if (!(source instanceof EnumerablePropertySource<?> names) || source.getName().startsWith(PACKAGED)
          || SPRING_BOOTS_OWN.contains(source.getName())) {
        continue;
      }
      for (String name : names.getPropertyNames()) {
        String property = source instanceof SystemEnvironmentPropertySource
            ? name.toLowerCase(Locale.ROOT).replace('_', '.') : name;
        if (SPRING_NAMESPACES.stream().anyMatch(property::startsWith) && !VALUES_ONLY.contains(property)) {
          return Optional.of(name + " is set (" + source.getName() + ")");
        }
      }
    }
    return Optional.empty();
  }

  /** After the configuration files are loaded and the profiles known. */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
