package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scaling section's arithmetic and its tables, without a cluster. */
class ScalingMathTest {
  @TempDir
  Path dir;

  @Test
  void theSingleLeaderComesFirstThenEachShardedReplicaCount() {
    assertThat(ScalingMath.configurations(List.of(1, 2, 3), List.of(1, 3))).extracting(ScalingMath.Configuration::label)
        .containsExactly("single leader, 1 replica", "sharded, 1 replica", "sharded, 2 replicas", "sharded, 3 replicas",
            "sharded, labelled at admission, 1 replica", "sharded, labelled at admission, 3 replicas");
    assertThat(ScalingMath.configurations(List.of(), List.of())).extracting(ScalingMath.Configuration::tag)
        .containsExactly("leader-r1");
    assertThat(new ScalingMath.Configuration(ScalingMath.SHARDED, 2).tag()).isEqualTo("sharded-r2");
    assertThat(new ScalingMath.Configuration(ScalingMath.LABELLED, 2).tag()).isEqualTo("sharded-labelled-r2");
    assertThat(new ScalingMath.Configuration(ScalingMath.LABELLED, 2).sharded()).isTrue();
  }

  @Test
  void pacesAndSharesOfACore() {
    assertThat(ScalingMath.perSecond(3000, 60)).isEqualTo(50);
    assertThat(ScalingMath.perSecond(3000, 0)).isNaN();
    assertThat(ScalingMath.percentOfOneCore(10.0, 10.6, 30)).isCloseTo(2.0, within(1e-9));
    assertThat(ScalingMath.percentOfOneCore(10.0, 11.0, 0)).isNaN();
    assertThat(ScalingMath.percentOfOneCore(Double.NaN, 11.0, 30)).as("a process that was not there").isNaN();
    // 20 s of the machine's CPU over 10 s, 17 of them the measured processes': 3 s others', 30 %.
    assertThat(ScalingMath.othersPercentOfOneCore(100, 120, 40, 57, 10)).isCloseTo(30.0, within(1e-9));
  }

  @Test
  void countsWhatLiesInAHalfOpenWindow() {
    Instant from = Instant.parse("2026-12-04T10:00:00Z");
    Instant to = from.plusSeconds(30);
    assertThat(ScalingMath.within(List.of(from.minusMillis(1), from, from.plusSeconds(29), to, to.plusSeconds(1)),
        from, to)).isEqualTo(2);
  }

  @Test
  void balancedWhenEveryBucketIsHeldByALiveReplicaAndLoadsDifferByOneAtMost() {
    Map<Integer, String> holders = new HashMap<>();
    for (int bucket = 0; bucket < 32; bucket++) {
      holders.put(bucket, bucket < 11 ? "a" : bucket < 22 ? "b" : "c");
    }
    Set<String> live = Set.of("a", "b", "c");
    assertThat(ScalingMath.balanced(holders, live, 32)).isTrue();
    assertThat(ScalingMath.bucketsPerReplica(holders, live)).isEqualTo(Map.of("a", 11, "b", 11, "c", 10));
    assertThat(ScalingMath.balanced(holders, Set.of("a", "b", "c", "d"), 32)).as("a live replica holding none")
        .isFalse();
    assertThat(ScalingMath.bucketsPerReplica(holders, Set.of("a", "b", "c", "d"))).containsEntry("d", 0);
    holders.put(31, "");
    assertThat(ScalingMath.balanced(holders, live, 32)).as("a released bucket").isFalse();
    holders.put(31, "gone");
    assertThat(ScalingMath.balanced(holders, live, 32)).as("a bucket held by a replica that left").isFalse();
    holders.remove(31);
    assertThat(ScalingMath.balanced(holders, live, 32)).as("a bucket without a Lease").isFalse();
    for (int bucket = 0; bucket < 32; bucket++) {
      holders.put(bucket, bucket < 20 ? "a" : "b");
    }
    assertThat(ScalingMath.balanced(holders, Set.of("a", "b"), 32)).as("20 against 12").isFalse();
  }

  @Test
  void resultsShowTheScalingTables() throws Exception {
    BenchResults r = BenchChartsTest.results();
    BenchResults.ScalingAtRest rest = new BenchResults.ScalingAtRest(30, 17.5, 19, 0, 4.2, 1.1, 0.5);
    Map<String, Double> threadsA = new LinkedHashMap<>();
    Map<String, Double> threadsB = new LinkedHashMap<>();
    ProcStats.THREAD_GROUPS.forEach(group -> {
      threadsA.put(group, 1.0);
      threadsB.put(group, 2.5);
    });
    BenchResults.ScalingReplica a = new BenchResults.ScalingReplica("a", 6.1, 9.5, 20.5, 16, 1510, 40.2, 190, 260, 60, 1.4,
        threadsA, threadsA);
    BenchResults.ScalingReplica b = new BenchResults.ScalingReplica("b", 6.3, 9.9, 19.5, 16, 1490, 39.8, 188, 255, 61, 1.5,
        threadsB, threadsB);
    r.scaling = new BenchResults.Scaling(30, List.of(new BenchResults.ScalingRun(3000, ScalingMath.SHARDED, 2, false,
        60, 50, 55, 54.5, Map.of("replicas", 13.3, "kube-apiserver", 18.0, "etcd", 2.0, "total", 33.3,
            Scaling.REPLICAS_FROM_READINESS, 7.1, Scaling.API_SERVER_WHILE_CREATED, 2.4), 2.01, 4, 0, Map.of("patch webapps", 3000), 3.2,
        List.of(a, b), rest, Map.of("webapps", 0L, "deployments", 0L, "services", 1L))));
    ResultsWriter.write(r, dir);
    String md = Files.readString(dir.resolve("results.md"));
    assertThat(md).contains("## 9. Scaling",
        "| 3000 | sharded, 2 replicas | 60 s, 50 WebApps/s | 55 s, 54.5 WebApps/s | 13.3 (7.1); 18; 2; **33.3**; 2.4 | "
            + "20.5 (9.5) / 19.5 (9.9) | 40.2 / 39.8 | 190 / 188; 260 / 255; 60 / 61 | 16 / 16; 1510 / 1490 | 2.01; 4; 0 | 3.2 |",
        "| 3000 | sharded, 2 replicas | 1.4 / 1.5 | 17.5 | 19 | 0 | 4.2; 1.1; 0.5 |",
        "| N | configuration | JIT compiler | garbage collector | main (start-up) | OkHttp | Steward and client-java | "
            + "other JVM threads | threads that ended | all |",
        "| 3000 | sharded, 2 replicas | 3.5 | 3.5 | 3.5 | 3.5 | 3.5 | 3.5 | 3.5 | 40 |",
        "| 3000 | sharded, 2 replicas | 1 / 2.5 | 1 / 2.5 | 1 / 2.5 | 1 / 2.5 | 1 / 2.5 | 1 / 2.5 | 1 / 2.5 | ",
        "left by earlier ones): none");
    assertThat(JsonParser.parseString(Files.readString(dir.resolve("results.json"))).getAsJsonObject()
        .getAsJsonObject("scaling").getAsJsonArray("runs")).hasSize(1);
  }
}
