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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The built operator jar run as a separate JVM, as a replica runs in a pod: its own identity and
 * User-Agent, its kubeconfig from KUBECONFIG (so client-java-spring-integration's auto-configured
 * ApiClient is what connects), its Actuator on a free loopback port, its output in a log file.
 * {@link #kill()} is a real SIGKILL, {@link #terminate()} a real SIGTERM.
 */
public final class OperatorProcess implements AutoCloseable {
  private final String identity;
  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private OperatorProcess(String identity, Process process, int port, Path log) {
    this.identity = identity;
    this.process = process;
    this.port = port;
    this.log = log;
  }

  public static Path jar() {
    Path jar = Path.of(System.getProperty("steward.jar", "target/steward-0.1.0-SNAPSHOT.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no operator jar at " + jar + ": run `mvn package` (mvn verify does) first");
    }
    return jar;
  }

  public static OperatorProcess start(LocalCluster cluster, String identity, Map<String, String> properties) {
    return start(cluster.kubeconfigFor("steward-operator"), identity, properties);
  }

  public static OperatorProcess start(Path kubeconfig, String identity, Map<String, String> properties) {
    return start(kubeconfig, identity, List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), properties);
  }

  /** Starts the jar with the given JVM options (the benchmark uses the Helm chart's). */
  public static OperatorProcess start(Path kubeconfig, String identity, List<String> jvmOptions,
      Map<String, String> properties) {
    return start(kubeconfig, identity, jar(), jvmOptions, properties);
  }

  /** Starts another build of the operator, e.g. one extracted for class-data sharing. */
  public static OperatorProcess start(Path kubeconfig, String identity, Path jar, List<String> jvmOptions,
      Map<String, String> properties) {
    int port = freePort();
    Path log = Path.of("target", "operators", identity + ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar.toString(),
        "--server.port=" + port, "--server.address=127.0.0.1",
        "--steward.leader-election.identity=" + identity));
    properties.forEach((key, value) -> command.add("--" + key + "=" + value));
    try {
      Files.createDirectories(log.getParent());
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().put("KUBECONFIG", kubeconfig.toAbsolutePath().toString());
      return new OperatorProcess(identity, builder.start(), port, log);
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

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path log() {
    return log;
  }

  /** GET an Actuator path; status code and body, or -1 when nothing answers. */
  public HttpResponse<String> actuator(String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/" + path))
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

  /** SIGTERM and wait for the exit code. */
  public int terminate() {
    process.destroy();
    return waitForExit(Duration.ofSeconds(60));
  }

  /** SIGKILL, as a node failure or OOM kill would. */
  public void kill() {
    process.destroyForcibly();
    waitForExit(Duration.ofSeconds(30));
  }

  public int waitForExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(identity + " did not exit within " + timeout);
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      waitForExit(Duration.ofSeconds(30));
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
