package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs the benchmark. In a plain {@code mvn verify} it is the smoke run (N = 20): it only checks
 * that the harness works end to end and writes its files, with no assertion on any time. With
 * {@code mvn verify -Pbench} (steward.bench.mode=full) it produces the real figures. The contenders
 * (the client-go writer's ceiling, a controller-runtime operator) run at the same tiny N, again only
 * to check that they run, write exactly Steward's objects and are reported; so does the scaling section
 * (single leader against sharded replicas), which {@code -Dsteward.bench.only=scaling} runs alone.
 */
class StewardBenchmarkIT {

  @Test
  void measuresAndWritesResults() throws Exception {
    BenchSettings settings = BenchSettings.fromSystemProperties();
    BenchResults results = new StewardBenchmark(settings).run();

    assertThat(settings.output().resolve("results.md")).exists();
    JsonObject json = JsonParser.parseString(Files.readString(settings.output().resolve("results.json")))
        .getAsJsonObject();
    if (settings.scaling()) {
      assertScalingRan(settings, results.scaling);
      assertThat(json.keySet()).contains("scaling");
    }
    if (!settings.everySection()) {
      System.out.println(Files.readString(settings.output().resolve("results.md")));
      return;
    }
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
          "controller-runtime create-at-once", "controller-runtime backlog", "steward create-at-once", "steward backlog",
          "controller-runtime second-burst", "steward second-burst");
      assertThat(contenders.runs()).allSatisfy(r -> assertThat(r.timedOut()).as("timed-out contender runs").isZero());
      assertThat(contenders.ratios()).extracting(BenchResults.Ratios::mode)
          .containsExactlyInAnyOrder("create-at-once", "backlog", "second-burst");
      assertThat(contenders.shapeDifferences()).as("contenders' objects against Steward's").isEmpty();
      assertThat(json.keySet()).contains("contenders");
    }
    System.out.println(Files.readString(settings.output().resolve("results.md")));
  }

  /**
   * Only that each configuration ran at each N, none timed out, the replicas wrote nothing at rest, and
   * each of two or more sharded replicas cached only part of the WebApps; no assertion on any time.
   */
  /** Steward's default bucket count, which the replicas here run with. */
  private static final int BUCKETS = new io.steward.operator.StewardProperties.Sharding().getBuckets();

  private static void assertScalingRan(BenchSettings settings, BenchResults.Scaling scaling) {
    List<String> expected = new ArrayList<>();
    for (int n : settings.scalingSizes()) {
      ScalingMath.configurations(settings.scalingReplicas(), settings.scalingLabelledReplicas()).forEach(c -> expected.add(n + " " + c.label()));
    }
    assertThat(scaling.runs()).extracting(r -> r.n() + " " + new ScalingMath.Configuration(r.mode(), r.replicas())
        .label()).containsExactlyElementsOf(expected);
    assertThat(scaling.runs()).allSatisfy(run -> {
      String configuration = run.n() + " " + run.mode() + " " + run.replicas();
      assertThat(run.timedOut()).as("timed out: %s", configuration).isFalse();
      assertThat(run.perReplica()).as("replicas measured: %s", configuration).hasSize(run.replicas());
      assertThat(run.atRest().objectWrites()).as("writes to WebApps, Deployments, Services at rest: %s",
          configuration).isZero();
      // The leader renews its Lease once per retry period (the default 2 s); a sharded replica writes its
      // member and bucket Leases once half a term has passed (every third retry period by default): at
      // most once per two retry periods each, or the rounds write more often than they should.
      boolean sharded = new ScalingMath.Configuration(run.mode(), run.replicas()).sharded();
      double leasesRenewed = sharded ? (run.replicas() + BUCKETS) / 4.0 : 1;
      assertThat(run.atRest().leaseWritesPerSecond()).as("Lease writes per second at rest: %s", configuration)
          .isLessThanOrEqualTo(leasesRenewed);
      if (run.mode().equals(ScalingMath.LABELLED)) {
        // The API server labelled every WebApp as it was created: Steward's three writes, no label patch.
        assertThat(run.writesPerWebApp()).as("writes per WebApp: %s", configuration).isEqualTo(3.0);
      }
      if (sharded && run.replicas() > 1) {
        assertThat(run.perReplica()).as("WebApps cached per replica: %s", configuration)
            .allSatisfy(replica -> assertThat(replica.cachedWebApps()).isLessThan(run.n()));
      }
    });
  }
}
