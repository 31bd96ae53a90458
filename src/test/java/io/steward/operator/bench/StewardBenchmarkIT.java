package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * Runs the benchmark. In a plain {@code mvn verify} it is the smoke run (N = 20): it only checks
 * that the harness works end to end and writes its files, with no assertion on any time. With
 * {@code mvn verify -Pbench} (steward.bench.mode=full) it produces the real figures. The contenders
 * (the client-go writer's ceiling, a controller-runtime operator) run at the same tiny N, again only
 * to check that they run, write exactly Steward's objects and are reported.
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
    if (settings.contenders()) {
      // Only that the contenders ran and wrote what Steward writes; no assertion on any time.
      BenchResults.Contenders contenders = results.contenders;
      assertThat(contenders.goCeiling()).extracting(BenchResults.GoCeilingRun::concurrency)
          .containsExactlyElementsOf(settings.contenderConcurrencies());
      assertThat(contenders.goCeiling()).allSatisfy(g -> {
        assertThat(g.failed()).as("failed requests of the Go writer").isZero();
        assertThat(g.writesPerWebApp().values()).as("the Go writer's writes per WebApp").containsOnly(3.0);
      });
      assertThat(contenders.runs()).extracting(r -> r.contender() + " " + r.mode()).contains(
          "controller-runtime create-at-once", "controller-runtime backlog", "steward create-at-once", "steward backlog");
      assertThat(contenders.runs()).allSatisfy(r -> assertThat(r.timedOut()).as("timed-out contender runs").isZero());
      assertThat(contenders.ratios()).hasSize(2);
      assertThat(contenders.shapeDifferences()).as("contenders' objects against Steward's").isEmpty();
      assertThat(json.keySet()).contains("contenders");
    }
    System.out.println(Files.readString(settings.output().resolve("results.md")));
  }
}
