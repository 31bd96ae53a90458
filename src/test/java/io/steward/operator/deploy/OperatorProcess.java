package io.steward.operator.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The operator jar that `mvn package` built, run as a separate `java -jar` process, as a container
 * would run it: configured by environment variables, talking to the API server with the kubeconfig
 * it is given, serving Actuator on a free loopback port.
 *
 * <p>It cannot outlive the test JVM: it runs under a small shell that holds the read end of a pipe
 * whose write end only this JVM has; when this JVM closes it (on {@link #close()}, or by dying, even
 * by SIGKILL) the shell sends the operator SIGTERM. A JVM shutdown hook and {@link #close()} also
 * kill whatever is left.
 */
final class OperatorProcess implements AutoCloseable {
  static final Path JAR = Path.of(System.getProperty("steward.operator.jar", "target/steward-0.1.0-SNAPSHOT.jar"));
  private static final Duration GRACEFUL_STOP = Duration.ofSeconds(45);
  // fd 3 keeps our pipe; the operator gets /dev/null as stdin and does not inherit the pipe.
  private static final String GUARD = """
      exec 3<&0
      "$@" </dev/null 3<&- &
      pid=$!
      ( cat <&3 >/dev/null; kill -TERM "$pid" 2>/dev/null ) &
      exec 3<&-
      wait "$pid"
      """;

  private final Process shell;
  private final Path log;
  private final int port;
  private final Thread shutdownHook;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private OperatorProcess(Process shell, Path log, int port) {
    this.shell = shell;
    this.log = log;
    this.port = port;
    this.shutdownHook = new Thread(this::killAll, "operator-process-kill");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * Starts {@code java [jvmOptions] -jar JAR --server.port=FREE --server.address=127.0.0.1 [args]}
   * with exactly {@code env} (plus PATH and a private HOME), writing its output to {@code log}.
   */
  static OperatorProcess start(Map<String, String> env, List<String> jvmOptions, List<String> args, Path log) {
    if (!Files.isRegularFile(JAR)) {
      throw new IllegalStateException(JAR + " does not exist: run `mvn package` (failsafe runs after it in `mvn verify`)");
    }
    int port = freePort();
    List<String> command = new ArrayList<>(List.of("sh", "-c", GUARD, "operator-guard"));
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", JAR.toAbsolutePath().toString(), "--server.port=" + port, "--server.address=127.0.0.1"));
    command.addAll(args);
    try {
      Files.createDirectories(log.getParent());
      Path home = Files.createDirectories(log.getParent().resolve("home"));
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
      builder.environment().clear();
      builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
      builder.environment().put("HOME", home.toAbsolutePath().toString());
      builder.environment().putAll(env);
      return new OperatorProcess(builder.start(), log, port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return port;
  }

  /** True until the operator has exited (the guard shell waits for it and ends with it). */
  boolean isRunning() {
    return shell.isAlive();
  }

  /** The operator's JVM (the shell's java child), once started. */
  Optional<ProcessHandle> operator() {
    return shell.descendants().filter(p -> p.info().command().map(c -> c.endsWith("/java") || c.equals("java"))
        .orElse(false)).findFirst();
  }

  /** Resident memory of the operator's JVM in bytes, from /proc. */
  long residentBytes() {
    long pid = operator().orElseThrow(() -> new IllegalStateException("operator not running")).pid();
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
          .filter(l -> l.startsWith("VmRSS:"))
          .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
          .findFirst().orElseThrow();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** GET http://127.0.0.1:PORT{path}: status code and body; code 0 when nothing answers. */
  record Response(int code, String body) {}

  Response get(String path) {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.body());
    } catch (IOException e) {
      return new Response(0, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Response(0, e.toString());
    }
  }

  String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  Path log() {
    return log;
  }

  /** SIGTERM through the guard (a graceful Spring shutdown), SIGKILL for anything still there after it. */
  @Override
  public void close() {
    List<ProcessHandle> tree = shell.descendants().toList();
    try {
      shell.getOutputStream().close();
      if (!shell.waitFor(GRACEFUL_STOP.toSeconds(), TimeUnit.SECONDS)) {
        killAll();
      }
    } catch (IOException e) {
      killAll();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      killAll();
    } finally {
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway
      }
    }
  }

  /** Exit code of the shell, which is the operator's; only after {@link #close()}. */
  int exitCode() {
    return shell.exitValue();
  }

  private void killAll() {
    shell.descendants().forEach(ProcessHandle::destroyForcibly);
    shell.destroyForcibly();
    try {
      shell.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
