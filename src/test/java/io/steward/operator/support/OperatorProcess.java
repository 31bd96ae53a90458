package io.steward.operator.support;

import io.steward.testing.cluster.LocalCluster;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The operator jar that `mvn package` built, run as a separate {@code java -jar} process, as a pod
 * runs it: configured by environment and arguments, talking to the API server with the kubeconfig
 * it is given (through KUBECONFIG, as {@code ClientConfiguration} finds it), serving Actuator on a
 * free loopback port, its output in a log file.
 *
 * <p>It cannot outlive the test JVM: it runs under a small shell that holds the read end of a pipe
 * whose write end only this JVM has; when this JVM closes it (on {@link #close()}, or by dying, even
 * by SIGKILL) the shell sends the operator SIGTERM. A JVM shutdown hook also kills what is left.
 * {@link #kill()} is a real SIGKILL of the operator, {@link #terminate()} a real SIGTERM.
 */
public final class OperatorProcess implements AutoCloseable {
  public static final Path JAR = Path.of(System.getProperty("steward.operator.jar", "target/steward-0.1.0-SNAPSHOT.jar"));
  /** What the chart's defaults amount to, for tests that do not set their own JVM options. */
  public static final List<String> TEST_JVM_OPTIONS = List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
  private static final Duration GRACEFUL_STOP = Duration.ofSeconds(45);
  /**
   * {@code bash -c GUARD guard COMMAND...}: runs COMMAND and sends it SIGTERM when this JVM's end of
   * the shell's stdin closes. fd 3 keeps our pipe; the command gets /dev/null as stdin and does not
   * inherit the pipe. Also used for the benchmark's Go contenders.
   */
  public static final String GUARD = """
      exec 3<&0
      "$@" </dev/null 3<&- &
      pid=$!
      ( cat <&3 >/dev/null; kill -TERM "$pid" 2>/dev/null ) &
      exec 3<&-
      wait "$pid"
      """;

  private final String identity;
  private final Process shell;
  private final Path log;
  private final int port;
  private final Thread shutdownHook;
  private volatile Instant exitedAt;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private OperatorProcess(String identity, Process shell, Path log, int port) {
    this.identity = identity;
    this.shell = shell;
    this.log = log;
    this.port = port;
    this.shutdownHook = new Thread(this::killAll, "operator-process-kill");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    shell.onExit().thenRun(() -> exitedAt = Instant.now());
  }

  /** A replica with its own identity (User-Agent {@code steward/<identity>}) and Spring properties. */
  public static OperatorProcess start(LocalCluster cluster, String identity, Map<String, String> properties) {
    return start(cluster.kubeconfigFor("steward-operator"), identity, properties, TEST_JVM_OPTIONS);
  }

  public static OperatorProcess start(Path kubeconfig, String identity, Map<String, String> properties,
      List<String> jvmOptions) {
    return start(kubeconfig, identity, JAR, jvmOptions, properties);
  }

  /** The same, with more environment variables (LD_PRELOAD for a shifted wall clock, say). */
  public static OperatorProcess start(Path kubeconfig, String identity, Map<String, String> properties,
      List<String> jvmOptions, Map<String, String> extraEnv) {
    return start(kubeconfig, identity, null, JAR, jvmOptions, properties, extraEnv);
  }

  /** Starts the given build of the operator. */
  public static OperatorProcess start(Path kubeconfig, String identity, Path jar, List<String> jvmOptions,
      Map<String, String> properties) {
    return start(kubeconfig, identity, null, jar, jvmOptions, properties);
  }

  /**
   * Starts the operator in {@code directory} (null: this JVM's), with {@code jar} and the JVM options
   * as given, relative paths included: as an image's ENTRYPOINT runs it in its WORKDIR (a
   * class-data-sharing archive only maps for the class path it was made with, to the letter).
   */
  public static OperatorProcess start(Path kubeconfig, String identity, Path directory, Path jar,
      List<String> jvmOptions, Map<String, String> properties) {
    return start(kubeconfig, identity, directory, jar, jvmOptions, properties, Map.of());
  }

  /** The same, with more environment variables (MALLOC_ARENA_MAX for a memory comparison, say). */
  public static OperatorProcess start(Path kubeconfig, String identity, Path directory, Path jar,
      List<String> jvmOptions, Map<String, String> properties, Map<String, String> extraEnv) {
    return start(kubeconfig, identity, directory, jar, directory == null && jar.equals(JAR), jvmOptions, properties,
        extraEnv);
  }

  /**
   * The jar `mvn package` built, run as it is ({@code java -jar}, no extraction, no class-data archive,
   * no ENTRYPOINT options), to show what the image's layout is worth.
   */
  public static OperatorProcess startPlainJar(Path kubeconfig, String identity, List<String> jvmOptions,
      Map<String, String> properties, Map<String, String> extraEnv) {
    return start(kubeconfig, identity, null, JAR, false, jvmOptions, properties, extraEnv);
  }

  private static OperatorProcess start(Path kubeconfig, String identity, Path directory, Path jar, boolean asImage,
      List<String> jvmOptions, Map<String, String> properties, Map<String, String> extraEnv) {
    List<String> args = new ArrayList<>(List.of("--steward.leader-election.identity=" + identity));
    properties.forEach((key, value) -> args.add("--" + key + "=" + value));
    Map<String, String> env = new LinkedHashMap<>(extraEnv);
    env.put("KUBECONFIG", kubeconfig.toAbsolutePath().toString());
    return start(identity, directory, jar, asImage, env, jvmOptions, args,
        Path.of("target", "operators", identity + ".log"));
  }

  /**
   * Starts {@code java [jvmOptions] -jar JAR --server.port=FREE --server.address=127.0.0.1 [args]}
   * with exactly {@code env} (plus PATH and a private HOME), writing its output to {@code log}.
   */
  public static OperatorProcess start(String identity, Map<String, String> env, List<String> jvmOptions,
      List<String> args, Path log) {
    return start(identity, null, JAR, true, env, jvmOptions, args, log);
  }

  /** {@code asImage}: {@link #JAR} laid out and started as the image runs it ({@link OperatorImage}). */
  private static OperatorProcess start(String identity, Path directory, Path jar, boolean asImage,
      Map<String, String> env, List<String> jvmOptions, List<String> args, Path log) {
    if (!Files.isRegularFile(directory == null ? jar : directory.resolve(jar))) {
      throw new IllegalStateException(jar + " does not exist: run `mvn package` (failsafe runs after it in `mvn verify`)");
    }
    int port = freePort();
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of("sh", "-c", GUARD, "operator-guard"));
    command.add(java);
    command.addAll(jvmOptions);
    if (asImage) {
      // The jar this build made runs as the image runs it: extracted, with its class-data archive.
      directory = OperatorImage.directoryFor(jar, java, jvmOptions);
      jar = Path.of(OperatorImage.JAR);
      command.addAll(OperatorImage.ENTRYPOINT_OPTIONS);
    }
    command.addAll(List.of("-jar", directory == null ? jar.toAbsolutePath().toString() : jar.toString(),
        "--server.port=" + port, "--server.address=127.0.0.1"));
    command.addAll(args);
    try {
      Files.createDirectories(log.getParent());
      Path home = Files.createDirectories(log.getParent().resolve("home"));
      ProcessBuilder builder = new ProcessBuilder(command).directory(directory == null ? null : directory.toFile())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.to(log.toFile().getAbsoluteFile()));
      builder.environment().clear();
      builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
      builder.environment().put("HOME", home.toAbsolutePath().toString());
      builder.environment().putAll(env);
      return new OperatorProcess(identity, builder.start(), log, port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String identity() {
    return identity;
  }

  public String userAgent() {
    return "steward/" + identity;
  }

  public int port() {
    return port;
  }

  /** True until the operator has exited (the guard shell waits for it and ends with it). */
  public boolean isRunning() {
    return shell.isAlive();
  }

  public boolean isAlive() {
    return isRunning();
  }

  /** The operator's JVM (the shell's java child), once started. */
  public Optional<ProcessHandle> operator() {
    return shell.descendants().filter(p -> p.info().command().map(c -> c.endsWith("/java") || c.equals("java"))
        .orElse(false)).findFirst();
  }

  /** Process id of the operator's JVM. */
  public long pid() {
    return operator().orElseThrow(() -> new IllegalStateException(identity + " is not running")).pid();
  }

  /** Resident memory of the operator's JVM in bytes, from /proc. */
  public long residentBytes() {
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status")).stream()
          .filter(l -> l.startsWith("VmRSS:"))
          .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
          .findFirst().orElseThrow();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** GET http://127.0.0.1:PORT{path}: status code and body; code 0 when nothing answers. */
  public record Response(int code, String body) {}

  public Response get(String path) {
    HttpResponse<String> response = send(path);
    return response == null ? new Response(0, "no answer") : new Response(response.statusCode(), response.body());
  }

  /**
   * The values of the series named {@code metric} (any labels) on the operator's Prometheus page, one
   * per series; empty when nothing answers.
   */
  public List<Double> metricValues(String metric) {
    HttpResponse<String> response = actuator("prometheus");
    if (response == null) {
      return List.of();
    }
    return response.body().lines().filter(l -> l.startsWith(metric + "{") || l.startsWith(metric + " "))
        .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).toList();
  }

  /** GET an Actuator path ({@code health/readiness}, {@code leader}, ...); null when nothing answers. */
  public HttpResponse<String> actuator(String path) {
    return send("/actuator/" + path);
  }

  private HttpResponse<String> send(String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  public boolean isReady() {
    HttpResponse<String> response = actuator("health/readiness");
    return response != null && response.statusCode() == 200;
  }

  /** SIGTERM to the operator, as a pod being stopped gets; waits for and returns its exit code. */
  public int terminate() {
    operator().ifPresent(ProcessHandle::destroy);
    return waitForExit(GRACEFUL_STOP);
  }

  /** SIGKILL to the operator, as a node failure or an OOM kill would. */
  public void kill() {
    operator().ifPresent(ProcessHandle::destroyForcibly);
    waitForExit(Duration.ofSeconds(30));
  }

  /** Waits for the operator to exit and returns its exit code (128 + signal when a signal killed it). */
  public int waitForExit(Duration timeout) {
    try {
      if (!shell.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(identity + " did not exit within " + timeout);
      }
      return shell.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** When the operator exited, as this JVM saw it; empty while it runs. */
  public Optional<Instant> exitedAt() {
    return Optional.ofNullable(exitedAt);
  }

  /** Exit code of the operator; only once it has exited. */
  public int exitCode() {
    return shell.exitValue();
  }

  public String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  public Path log() {
    return log;
  }

  /**
   * SIGTERM through the guard (a graceful Spring shutdown), SIGKILL for anything still there after it;
   * then fails if any thread of the operator died of an uncaught exception, which it logs nowhere else.
   */
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
    List<String> uncaught = uncaughtExceptions();
    if (!uncaught.isEmpty()) {
      throw new AssertionError(identity + ": a thread died of an uncaught exception " + uncaught + " (log " + log + ")");
    }
  }

  private List<String> uncaughtExceptions() {
    try (var lines = Files.lines(log)) {
      return lines.filter(l -> l.startsWith("Exception in thread ")).map(l -> l.substring(0, Math.min(l.length(), 300)))
          .toList();
    } catch (IOException | UncheckedIOException e) {
      return List.of();
    }
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
