package io.steward.operator;

import io.steward.operator.runtime.lifecycle.LeadershipLostHandler;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import sun.misc.Signal;

/**
 * How the process ends, in one place: the Spring context is closed (a graceful stop) and the JVM
 * exits with a code that says why. On SIGTERM (a pod being stopped) or SIGINT (Ctrl-C): 0, where
 * the JVM's default would run the same shutdown but report death by signal, which reads as a failure
 * to whoever watches exit codes. After a lost leadership term: non-zero, so the pod restarts as a
 * clean candidate.
 */
final class ProcessExit implements LeadershipLostHandler {
  private final ConfigurableApplicationContext context;

  ProcessExit(ConfigurableApplicationContext context) {
    this.context = context;
  }

  /** Installs the signal handlers; each exits on a thread of its own, as a signal handler must not block. */
  void onSignals() {
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), signal -> new Thread(() -> exit(0), "shutdown-on-SIG" + name).start());
    }
  }

  @Override
  public void leadershipLost() {
    exit(1);
  }

  private void exit(int code) {
    System.exit(SpringApplication.exit(context, () -> code));
  }
}
