package io.steward.operator.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** kubectl (on PATH), as a user would run it, against the kubeconfig given. */
final class Kubectl {
  private static final long TIMEOUT_SECONDS = 180;

  record Result(int exitCode, String stdout, String stderr) {
    Result orFail(String what) {
      if (exitCode != 0) {
        throw new AssertionError(what + " failed (exit " + exitCode + "):\n" + stderr + "\n" + stdout);
      }
      return this;
    }

    /** Lines kubectl prints as "Warning: ..." (deprecations, PodSecurity violations). */
    List<String> warnings() {
      return stderr.lines().filter(l -> l.startsWith("Warning:")).toList();
    }
  }

  private final Path kubeconfig;

  Kubectl(Path kubeconfig) {
    this.kubeconfig = kubeconfig.toAbsolutePath();
  }

  /** `kubectl apply --server-side --dry-run=server -f FILE`: the API server validates and admits, and stores nothing. */
  Result dryRunApply(Path manifests) {
    return run("apply", "--server-side", "--force-conflicts", "--field-manager=steward-deploy-it",
        "--dry-run=server", "-f", manifests.toString());
  }

  Result apply(Path manifests) {
    return run("apply", "--server-side", "--force-conflicts", "--field-manager=steward-deploy-it",
        "-f", manifests.toString());
  }

  /** `kubectl kustomize DIR` (kubectl's built-in kustomize). */
  static Result kustomize(Path directory) {
    return exec(List.of("kubectl", "kustomize", directory.toString()));
  }

  Result run(String... args) {
    List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig=" + kubeconfig));
    command.addAll(List.of(args));
    return exec(command);
  }

  private static Result exec(List<String> command) {
    try {
      Path out = Files.createTempFile("kubectl", ".out");
      Path err = Files.createTempFile("kubectl", ".err");
      try {
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        process.getOutputStream().close();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          throw new AssertionError(String.join(" ", command) + " did not finish within " + TIMEOUT_SECONDS + " s");
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
