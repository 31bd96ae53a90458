package io.steward.operator;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The image's class-data-sharing archive holds the classes its training run loaded, and that run
 * stops once the context is refreshed, before any connection to an API server: the classes a real
 * start loads after that (TLS, HTTP/2, the informers, the reconcile's own) were loaded from the jar
 * and verified at every start. In the training run only, this loads the classes listed in
 * {@value #CLASS_LIST} (without initialising them) so that the archive holds them too. A name that
 * no longer exists is skipped: the list only saves work. Registered in {@code META-INF/spring.factories}.
 */
public final class ArchiveTraining implements EnvironmentPostProcessor {
  static final String CLASS_LIST = "META-INF/steward/classes-loaded-after-refresh.txt";

  private final Log log;

  public ArchiveTraining(DeferredLogFactory logs) {
    this.log = logs.getLog(ArchiveTraining.class);
  }

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (!"onRefresh".equals(environment.getProperty("spring.context.exit"))) {
      return;
    }
    ClassLoader loader = ArchiveTraining.class.getClassLoader();
    Loaded counts = loadListed(loader);
    log.info("Class-data-sharing training: loaded " + counts.loaded() + " classes a start loads after the refresh; "
        + counts.missing() + " listed are not on this class path");
  }

  /** How many listed classes were loaded, and how many are not on the class path. */
  record Loaded(int loaded, int missing) {}

  static Loaded loadListed(ClassLoader loader) {
    int loaded = 0;
    int missing = 0;
    try (InputStream in = loader.getResourceAsStream(CLASS_LIST)) {
      if (in == null) {
        return new Loaded(0, 0);
      }
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String name = lines.readLine(); name != null; name = lines.readLine()) {
        if (name.isBlank()) {
          continue;
        }
        try {
          Class.forName(name.strip(), false, loader);
          loaded++;
        } catch (ClassNotFoundException | LinkageError e) {
          missing++;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not read " + CLASS_LIST, e);
    }
    return new Loaded(loaded, missing);
  }
}
