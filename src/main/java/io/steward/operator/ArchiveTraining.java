package io.steward.operator;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.support.DefaultLifecycleProcessor;
import org.springframework.core.SpringProperties;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The image's class-data-sharing archive holds the classes its training run loaded, and that run
 * stops once the context is refreshed, before any connection to an API server: the classes a real
 * start loads after that (TLS, HTTP/2, the informers, the reconcile's own) were loaded from the jar
 * and verified at every start. In the training run only (decided as Spring decides to stop there),
 * this loads the classes listed in {@value #CLASS_LIST} (without initialising them) so that the
 * archive holds them too. A name that no longer exists is skipped: the list only saves work.
 * Registered in {@code META-INF/spring.factories}.
 */
public final class ArchiveTraining implements EnvironmentPostProcessor {
  static final String CLASS_LIST = "META-INF/steward/classes-loaded-after-refresh.txt";

  private final Log log;

  public ArchiveTraining(DeferredLogFactory logs) {
    this.log = logs.getLog(ArchiveTraining.class);
  }

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (!DefaultLifecycleProcessor.ON_REFRESH_VALUE.equals(
        SpringProperties.getProperty(DefaultLifecycleProcessor.EXIT_PROPERTY_NAME))) {
      return;
    }
    ClassLoader loader = ArchiveTraining.class.getClassLoader();
    List<String> listed = listed(loader);
    long loaded = listed.stream().filter(name -> load(name, loader)).count();
    log.info("Class-data-sharing training: loaded " + loaded + " classes a start loads after the refresh; "
        + (listed.size() - loaded) + " listed are not on this class path");
  }

  /** The names in {@value #CLASS_LIST}; none when the jar has no list. */
  static List<String> listed(ClassLoader loader) {
    try (InputStream in = loader.getResourceAsStream(CLASS_LIST)) {
      if (in == null) {
        return List.of();
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
          .filter(name -> !name.isEmpty()).toList();
    } catch (IOException e) {
      throw new IllegalStateException("could not read " + CLASS_LIST, e);
    }
  }

  /** Loads the class without initialising it; false when it is not on the class path. */
  static boolean load(String name, ClassLoader loader) {
    try {
      Class.forName(name, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
