package io.steward.testing.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds the control-plane binary, building it from {@code src/test/controlplane} on first use. The
 * build script owns the cache layout and locking; this class only runs it and reports its progress.
 */
final class ControlPlaneBinary {
  private static volatile Path resolved;

  private ControlPlaneBinary() {}

  static synchronized Path get() {
    if (resolved == null) {
      resolved = build();
    }
    return resolved;
  }

  private static Path build() {
    Path source = Path.of(System.getProperty("steward.controlplane.source", "src/test/controlplane"))
        .toAbsolutePath();
    Path script = source.resolve("build.sh");
    if (!Files.isRegularFile(script)) {
      throw new IllegalStateException("local cluster: no build script at " + script
          + " (run from the project directory or set -Dsteward.controlplane.source)");
    }
    try {
      Process build = new ProcessBuilder(List.of("bash", script.toString()))
          .redirectError(ProcessBuilder.Redirect.INHERIT)
          .start();
      build.getOutputStream().close();
      String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      int code = build.waitFor();
      if (code != 0) {
        throw new IllegalStateException("local cluster: building the control plane failed (exit " + code
            + "); its output is above. Re-run by hand: bash " + script);
      }
      Path binary = Path.of(output.substring(output.lastIndexOf('\n') + 1));
      if (!Files.isExecutable(binary)) {
        throw new IllegalStateException("local cluster: build script reported " + binary
            + " but it is not an executable file");
      }
      return binary;
    } catch (IOException e) {
      throw new UncheckedIOException("local cluster: could not run " + script, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while building the control plane", e);
    }
  }
}
