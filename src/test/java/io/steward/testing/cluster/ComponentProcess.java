package io.steward.testing.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One control-plane component run as a child process of this JVM. It can be stopped and started
 * again with the same arguments (etcd keeps its data directory), and it cannot outlive the JVM: the
 * child watches the stdin pipe we hold open (see {@code exitWhenParentGoes} in main.go), so even
 * {@code kill -9} of the JVM stops it.
 */
public final class ComponentProcess {
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private final String name;
  private final List<String> command;
  private final Path log;
  private Process process;

  ComponentProcess(String name, Path binary, List<String> arguments, Path logDirectory) {
    this.name = name;
    this.command = new ArrayList<>();
    this.command.add(binary.toString());
    this.command.add(name);
    this.command.addAll(arguments);
    this.log = logDirectory.resolve(name + ".log");
  }

  public String name() {
    return name;
  }

  public Path log() {
    return log;
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Process id of the running component, for tests that check nothing is left behind. */
  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException(name + " has not been started");
    }
    return process.pid();
  }

  /** Starts the process and waits until {@code ready} holds, failing with the log's tail if not. */
  public synchronized void start(BooleanSupplier ready, Duration timeout) {
    if (isRunning()) {
      return;
    }
    try {
      Files.createDirectories(log.getParent());
      Files.writeString(log, "---- start " + java.time.Instant.now() + ": " + String.join(" ", command) + "\n",
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().put("STEWARD_PARENT_PIPE", "stdin");
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name, e);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw failure("exited with code " + process.exitValue() + " while starting");
      }
      try {
        if (ready.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException notYet) {
        // not accepting connections yet
      }
      sleep(100);
    }
    stop();
    throw failure("was not ready within " + timeout.toSeconds() + " s");
  }

  /** SIGTERM, then SIGKILL after a grace period; waits until the process is gone. */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    process = null;
  }

  /** SIGKILL with no grace, as a crash would. */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  IllegalStateException failure(String what) {
    return new IllegalStateException("local cluster: " + name + " " + what + "; last lines of " + log
        + ":\n" + tail(40));
  }

  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a component", e);
    }
  }
}
