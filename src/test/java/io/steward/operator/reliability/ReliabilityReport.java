package io.steward.operator.reliability;

import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Figures of the reliability scenarios, written to target/reliability/report.json and report.md.
 * One report per test JVM: every scenario class records into it and writes it whole when it ends.
 */
final class ReliabilityReport {
  private static final ReliabilityReport SHARED =
      new ReliabilityReport("full".equals(System.getProperty("steward.reliability")) ? "full" : "short");

  private final Map<String, Map<String, Object>> scenarios = new LinkedHashMap<>();
  private final String mode;

  private ReliabilityReport(String mode) {
    this.mode = mode;
  }

  static ReliabilityReport shared() {
    return SHARED;
  }

  synchronized void record(String scenario, String figure, Object value) {
    scenarios.computeIfAbsent(scenario, s -> new LinkedHashMap<>()).put(figure, value);
  }

  synchronized void write(Path dir) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("date", Instant.now().toString());
    root.put("mode", mode);
    root.put("machine", Map.of("cores", Runtime.getRuntime().availableProcessors(),
        "java", System.getProperty("java.version"), "os", System.getProperty("os.name") + " " + System.getProperty("os.arch")));
    root.put("scenarios", scenarios);
    StringBuilder md = new StringBuilder("| scenario | figure | value |\n| --- | --- | --- |\n");
    scenarios.forEach((scenario, figures) -> figures.forEach((figure, value) ->
        md.append("| ").append(scenario).append(" | ").append(figure).append(" | ").append(value).append(" |\n")));
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("report.json"), new GsonBuilder().setPrettyPrinting().create().toJson(root));
      Files.writeString(dir.resolve("report.md"), "Reliability run (" + mode + "), " + root.get("date") + ", "
          + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version")
          + "\n\n" + md);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
