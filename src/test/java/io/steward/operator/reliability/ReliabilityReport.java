package io.steward.operator.reliability;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.steward.operator.support.Charts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Figures of the reliability scenarios, written to target/reliability/report.json and report.md.
 * One report per test JVM: every scenario class records into it and writes it when it ends, merged
 * with what the other test JVMs of the same build wrote.
 */
public final class ReliabilityReport {
  private static final ReliabilityReport SHARED =
      new ReliabilityReport("full".equals(System.getProperty("steward.reliability")) ? "full" : "short");

  /** The build the test JVMs belong to (failsafe passes Maven's build timestamp); empty outside Maven. */
  private static final String RUN = System.getProperty("steward.run", "");

  private final Map<String, Map<String, Object>> scenarios = new LinkedHashMap<>();
  private final Map<String, Charts.Timeline> timelines = new LinkedHashMap<>();
  private final String mode;

  private ReliabilityReport(String mode) {
    this.mode = mode;
  }

  public static ReliabilityReport shared() {
    return SHARED;
  }

  public synchronized void record(String scenario, String figure, Object value) {
    scenarios.computeIfAbsent(scenario, s -> new LinkedHashMap<>()).put(figure, value);
  }

  /** A failover run's timeline, drawn beside the report as failover-<scenario>.png when it is written. */
  public synchronized void timeline(String scenario, Charts.Timeline timeline) {
    timelines.put(scenario, timeline);
  }

  static String pictureName(String scenario) {
    return "failover-" + scenario.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-") + ".png";
  }

  public synchronized void write(Path dir) {
    try {
      Files.createDirectories(dir);
      // Test JVMs side by side each hold the figures of their own scenarios: merge them in one file.
      try (FileChannel lock = FileChannel.open(dir.resolve("report.lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE); FileLock held = lock.lock()) {
        writeMerged(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** This JVM's scenarios over those already in the file from the same build (its {@code steward.run}). */
  private void writeMerged(Path dir) throws IOException {
    Map<String, Map<String, Object>> merged = new LinkedHashMap<>();
    Path json = dir.resolve("report.json");
    if (!RUN.isEmpty() && Files.isRegularFile(json)) {
      JsonObject previous = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
      if (previous.has("run") && RUN.equals(previous.get("run").getAsString())) {
        previous.getAsJsonObject("scenarios").entrySet().forEach(scenario -> {
          Map<String, Object> figures = new LinkedHashMap<>();
          scenario.getValue().getAsJsonObject().entrySet().forEach(f -> figures.put(f.getKey(),
              f.getValue().isJsonPrimitive() && f.getValue().getAsJsonPrimitive().isString()
                  ? f.getValue().getAsString() : f.getValue()));
          merged.put(scenario.getKey(), figures);
        });
      }
    }
    merged.putAll(scenarios);
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("run", RUN);
    root.put("date", Instant.now().toString());
    root.put("mode", mode);
    root.put("machine", Map.of("cores", Runtime.getRuntime().availableProcessors(),
        "java", System.getProperty("java.version"), "os", System.getProperty("os.name") + " " + System.getProperty("os.arch")));
    root.put("scenarios", merged);
    StringBuilder md = new StringBuilder("| scenario | figure | value |\n| --- | --- | --- |\n");
    merged.forEach((scenario, figures) -> figures.forEach((figure, value) ->
        md.append("| ").append(scenario).append(" | ").append(figure).append(" | ").append(value).append(" |\n")));
    timelines.forEach((scenario, timeline) -> Charts.failover(dir.resolve(pictureName(scenario)),
        scenario + ": leader per replica, writes per replica (dashed lines: faults)", timeline));
    // The pictures of this build's scenarios, this JVM's or another's.
    merged.keySet().stream().filter(scenario -> Files.isRegularFile(dir.resolve(pictureName(scenario))))
        .forEach(scenario -> md.append("\n![").append(scenario).append("](").append(pictureName(scenario)).append(")\n"));
    Files.writeString(json, new GsonBuilder().setPrettyPrinting().create().toJson(root));
    Files.writeString(dir.resolve("report.md"), "Reliability run (" + mode + "), " + root.get("date") + ", "
        + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version")
        + "\n\n" + md);
  }
}
