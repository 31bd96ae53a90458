package io.steward.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A one-file Java program run in a JVM of its own, on the tests' class path, for what only a fresh
 * JVM shows (its own options, the classes it loads). A source file rather than a main class among the
 * test classes: {@code spring-boot:test-run} needs LocalStewardApplication to stay the only one.
 */
public final class SourceFileJvm {
  /** The JVM's exit code, and its standard output and error together. */
  public record Result(int exitCode, String output) {}

  private SourceFileJvm() {}

  /** Writes {@code source} to {@code file} and runs it with {@code jvmOptions}, waiting for it to end. */
  public static Result run(Path file, String source, List<String> jvmOptions) throws IOException, InterruptedException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, source);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), file.toString()));
    Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(jvm.waitFor(), output);
  }
}
