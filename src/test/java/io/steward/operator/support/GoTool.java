package io.steward.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A test tool built from Go modules by its build.sh (src/test/kstatus, src/test/promtool), which
 * caches the build and prints where it is on its last line.
 */
public final class GoTool {
  private GoTool() {}

  /** Runs {@code script} (its progress goes to this process' stderr) and returns the path it printed last. */
  public static Path build(String script, String what) {
    Path absolute = Path.of(script).toAbsolutePath();
    try {
      Process build = new ProcessBuilder(List.of("bash", absolute.toString()))
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      build.getOutputStream().close();
      String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (build.waitFor() != 0) {
        throw new IllegalStateException("building " + what + " failed; its output is above. Re-run: bash " + absolute);
      }
      Path built = Path.of(output.substring(output.lastIndexOf('\n') + 1));
      if (!Files.exists(built)) {
        throw new IllegalStateException(what + " build reported " + built + " but it does not exist");
      }
      return built;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
