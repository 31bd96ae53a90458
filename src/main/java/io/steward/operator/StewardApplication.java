package io.steward.operator;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import sun.misc.Signal;

/**
 * Steward: a Kubernetes operator for WebApp resources. The runtime (controller wiring, leader
 * election, metrics, health) is in {@code io.steward.operator.runtime}; the WebApp domain (API
 * types, desired state, status) in {@code io.steward.operator.webapp}.
 */
@SpringBootApplication
public class StewardApplication {
  public static void main(String[] args) {
    ConfigurableApplicationContext context = SpringApplication.run(StewardApplication.class, args);
    exitCleanlyOnSignals(context);
  }

  /**
   * On SIGTERM (a pod being stopped) or SIGINT (Ctrl-C): stop gracefully, then exit 0. The JVM's
   * default would run the same shutdown but report death by signal (exit 143), which reads as a
   * failure to whoever watches exit codes.
   */
  static void exitCleanlyOnSignals(ConfigurableApplicationContext context) {
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), signal -> new Thread(
          () -> System.exit(SpringApplication.exit(context)), "shutdown-on-SIG" + name).start());
    }
  }
}
