package io.steward.operator.support;

import com.google.gson.Gson;
import com.google.gson.reflect.TypeToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus' promtool and the metricnames helper (Prometheus' own PromQL parser), built from the Go
 * modules in src/test/promtool into a per-user cache: by the Maven build before the tests, or here on
 * first use when a test runs from an IDE.
 */
public final class Promtool {
  /** What a command printed and how it ended. */
  public record Result(int exitCode, String output) {}

  private static Path directory;

  private Promtool() {}

  /** {@code promtool ARGS}, run in the project directory. */
  public static Result run(String... args) {
    List<String> command = new ArrayList<>(List.of(directory().resolve("promtool").toString()));
    command.addAll(List.of(args));
    return exec(command, null);
  }

  /** The metric names each PromQL expression selects, in order; fails on an expression that does not parse. */
  public static List<List<String>> metricNames(List<String> expressions) {
    Gson gson = new Gson();
    Result result = exec(List.of(directory().resolve("metricnames").toString()), gson.toJson(expressions));
    if (result.exitCode() != 0) {
      throw new IllegalArgumentException("metricnames: " + result.output());
    }
    return gson.fromJson(result.output(), new TypeToken<List<List<String>>>() {}.getType());
  }

  private static Result exec(List<String> command, String stdin) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (stdin != null) {
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(command + " did not finish within 2 minutes");
      }
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static synchronized Path directory() {
    if (directory == null) {
      Path built = GoTool.build("src/test/promtool/build.sh", "promtool");
      if (!Files.isExecutable(built.resolve("promtool")) || !Files.isExecutable(built.resolve("metricnames"))) {
        throw new IllegalStateException("promtool build reported " + built + " but it holds no promtool and metricnames");
      }
      directory = built;
    }
    return directory;
  }
}
