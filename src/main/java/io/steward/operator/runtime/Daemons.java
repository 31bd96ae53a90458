package io.steward.operator.runtime;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/** Named daemon threads for the runtime's timers, so none of them keeps a stopping JVM alive. */
final class Daemons {
  private Daemons() {}

  static ThreadFactory named(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  static ScheduledExecutorService scheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(named(name));
  }
}
