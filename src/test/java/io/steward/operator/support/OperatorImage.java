package io.steward.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The operator jar laid out as the image runs it: extracted (`java -Djarmode=tools extract`) beside a
 * class-data-sharing archive from a training run, made once per build of the jar and reused by every
 * process a test starts. Tests start many replicas; mapping the archived classes instead of loading
 * them again shortens each start as it does in a pod, and the tests run what the image runs: with the
 * ENTRYPOINT's options, Spring AOT's bean definitions included.
 */
public final class OperatorImage {
  static final String JAR = "steward.jar";
  static final String ARCHIVE = "steward.jsa";
  /** The JVM options of the Dockerfile's ENTRYPOINT, which {@code DockerfileIT} holds it to. */
  public static final List<String> ENTRYPOINT_OPTIONS = List.of("-XX:SharedArchiveFile=" + ARCHIVE,
      "-Dspring.aot.enabled=true");
  private static final Path TRAINING_KUBECONFIG = Path.of("src", "main", "docker", "cds-training.kubeconfig");

  private static Path prepared;

  private OperatorImage() {
  }

  /** The directory holding {@link #JAR} and {@link #ARCHIVE} for {@code jar}, made on first use. */
  static synchronized Path directoryFor(Path jar, String java, List<String> jvmOptions) {
    try {
      Path directory = Path.of("target", "operator-image",
          Long.toString(Files.getLastModifiedTime(jar).toMillis()) + "-" + Files.size(jar)).toAbsolutePath();
      if (directory.equals(prepared)) {
        return directory;
      }
      Files.createDirectories(directory.getParent());
      // Test JVMs side by side: one prepares, the others wait for it and reuse what it made.
      try (FileChannel lock = FileChannel.open(directory.getParent().resolve("prepare.lock"),
          StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock held = lock.lock()) {
        if (!Files.isRegularFile(directory.resolve(ARCHIVE))) {
          prepare(directory, jar, java, jvmOptions);
        }
      }
      return prepared = directory;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void prepare(Path directory, Path jar, String java, List<String> jvmOptions) throws IOException {
    Files.createDirectories(directory);
    run(directory, List.of(java, "-Djarmode=tools", "-jar", jar.toAbsolutePath().toString(), "extract",
        "--application-filename", JAR, "--destination", directory.toString(), "--force"));
    List<String> training = new ArrayList<>(List.of(java, "-XX:ArchiveClassesAtExit=" + ARCHIVE, "-Xlog:cds=error",
        "-Dspring.aot.enabled=true", "-Dspring.context.exit=onRefresh"));
    training.addAll(jvmOptions);
    training.addAll(List.of("-jar", JAR));
    run(directory, training);
    if (!Files.isRegularFile(directory.resolve(ARCHIVE))) {
      throw new IllegalStateException("the training run wrote no " + ARCHIVE + ": see " + directory.resolve("prepare.log"));
    }
  }

  private static void run(Path directory, List<String> command) throws IOException {
    Path log = directory.resolve("prepare.log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("KUBECONFIG", TRAINING_KUBECONFIG.toAbsolutePath().toString());
    builder.environment().put("HOME", directory.toString());
    Process process = builder.start();
    try {
      if (!process.waitFor(3, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish: see " + log);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed with " + process.exitValue() + ": see " + log);
    }
  }
}
