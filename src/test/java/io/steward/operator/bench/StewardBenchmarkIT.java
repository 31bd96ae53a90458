package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * Runs the benchmark. In a plain {@code mvn verify} it is the smoke run (N = 20): it only checks
 * that the harness works end to end and writes its files, with no assertion on any time. With
 * {@code mvn verify -Pbench} (steward.bench.mode=full) it produces the real figures.
 */
class StewardBenchmarkIT {

  @Test
  void measuresAndWritesResults() throws Exception {
    BenchSettings settings = BenchSettings.fromSystemProperties();
    BenchResults results = new StewardBenchmark(settings).run();

    assertThat(settings.output().resolve("results.md")).exists();
    JsonObject json = JsonParser.parseString(Files.readString(settings.output().resolve("results.json")))
        .getAsJsonObject();
    assertThat(json.keySet()).contains("date", "machine", "ceiling", "convergence", "requests", "steadyState",
        "latency", "memory", "startup");
    assertThat(results.ceiling).isNotEmpty()
        .allSatisfy(c -> assertThat(c.failedRequests()).as("failed requests in the ceiling run").isZero());
    assertThat(results.ceiling).extracting(BenchResults.Ceiling::storedWebApps).as("ceiling with the largest N stored")
        .contains(settings.largestSize());
    assertThat(results.convergence).allSatisfy(c -> assertThat(c.timedOut()).as("timed-out runs").isZero());
    assertThat(results.convergence).extracting(BenchResults.Convergence::n).containsAll(settings.sizes());
    assertThat(results.latency.lost()).as("spec changes whose Deployment update was never seen").isZero();
    assertThat(results.steadyState).isNotNull();
    assertThat(results.startup).extracting(BenchResults.Startup::existingWebApps).contains(0, settings.largestSize());
    System.out.println(Files.readString(settings.output().resolve("results.md")));
  }
}
