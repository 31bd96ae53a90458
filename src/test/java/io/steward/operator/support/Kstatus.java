package io.steward.operator.support;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * kstatus' verdict on an object (sigs.k8s.io/cli-utils' status.Compute, what Flux and kpt use), from
 * the small Go command in src/test/kstatus, built from Go modules on first use.
 */
public final class Kstatus {
  /** The verdict and kstatus' message. */
  public record Verdict(String status, String message) {}

  private static Path binary;

  private Kstatus() {}

  public static Verdict judge(JsonObject object) {
    try {
      Process judge = new ProcessBuilder(List.of(binary().toString())).start();
      judge.getOutputStream().write(object.toString().getBytes(StandardCharsets.UTF_8));
      judge.getOutputStream().close();
      String out = new String(judge.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      String err = new String(judge.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!judge.waitFor(30, TimeUnit.SECONDS) || judge.exitValue() != 0) {
        throw new IllegalStateException("kstatus failed on " + object + ": " + err);
      }
      JsonObject verdict = JsonParser.parseString(out).getAsJsonObject();
      return new Verdict(verdict.get("status").getAsString(), verdict.get("message").getAsString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static synchronized Path binary() {
    if (binary == null) {
      Path built = GoTool.build("src/test/kstatus/build.sh", "the kstatus judge");
      if (!Files.isExecutable(built)) {
        throw new IllegalStateException("kstatus build reported " + built + " but it is not executable");
      }
      binary = built;
    }
    return binary;
  }
}
