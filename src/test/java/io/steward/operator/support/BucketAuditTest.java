package io.steward.operator.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.testing.cluster.AuditLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit's model of who may write, on scripted audit logs of a switch between modes. */
class BucketAuditTest {
  private static final String NS = "switch";
  private static final int BUCKETS = 32;
  private static final String APP = "app-7";
  private static final int BUCKET = BucketHash.bucketOf(NS, APP, BUCKETS);
  private static final Instant T0 = Instant.parse("2026-12-05T22:40:20Z");

  @TempDir
  Path dir;

  /**
   * A sharded replica took a bucket as the new leader took the leader Lease, saw the leader on its
   * second read and gave the bucket back without a term: the leader's write meanwhile is its alone.
   */
  @Test
  void aTakeGivenBackUnusedIsNoTerm() throws IOException {
    List<String> log = modeSwitch();
    log.add(write(1_300, "leader-b", "deployments", APP));
    log.add(leaseWrite(1_350, "shard-a", "steward-bucket-" + BUCKET, ""));

    assertThat(audit(log).writesBesideTheOtherMode()).isEmpty();
  }

  /** The same, but the sharded replica wrote in the bucket before giving it back: both writes are flagged. */
  @Test
  void aTakeUsedBeforeItWasGivenBackStands() throws IOException {
    List<String> log = modeSwitch();
    log.add(write(1_250, "shard-a", "deployments", APP));
    log.add(write(1_300, "leader-b", "deployments", APP));
    log.add(leaseWrite(1_350, "shard-a", "steward-bucket-" + BUCKET, ""));

    assertThat(audit(log).writesBesideTheOtherMode()).extracting(AuditLog.Entry::userAgent)
        .containsExactly("steward/shard-a", "steward/leader-b");
  }

  /** The bucket still held when the leader writes (never given back): flagged. */
  @Test
  void aTakeNotGivenBackStands() throws IOException {
    List<String> log = modeSwitch();
    log.add(write(1_300, "leader-b", "deployments", APP));

    assertThat(audit(log).writesBesideTheOtherMode()).extracting(AuditLog.Entry::userAgent)
        .containsExactly("steward/leader-b");
  }

  /** leader-a leads and releases; leader-b takes the leader Lease as shard-a takes the bucket. */
  private static List<String> modeSwitch() {
    List<String> log = new ArrayList<>();
    log.add(leaseWrite(0, "leader-a", "steward-leader", "leader-a"));
    log.add(write(50, "leader-a", "deployments", APP));
    log.add(leaseWrite(1_000, "leader-a", "steward-leader", ""));
    log.add(leaseWrite(1_100, "leader-b", "steward-leader", "leader-b"));
    log.add(leaseWrite(1_150, "shard-a", "steward-bucket-" + BUCKET, "shard-a"));
    return log;
  }

  private BucketAudit audit(List<String> lines) throws IOException {
    Path file = dir.resolve("audit.log");
    Files.write(file, lines);
    return new BucketAudit(AuditLog.read(file), NS, NS, BUCKETS, Duration.ofSeconds(6));
  }

  private static String leaseWrite(long millis, String writer, String lease, String holder) {
    return entry(at(millis), writer,
        "coordination.k8s.io", "leases", lease, ",\"requestObject\":{\"spec\":{\"holderIdentity\":\"" + holder + "\"}}");
  }

  private static String write(long millis, String writer, String resource, String name) {
    return entry(at(millis), writer, "apps", resource, name, "");
  }

  private static Instant at(long millis) {
    return T0.plusMillis(millis);
  }

  private static String entry(Instant at, String writer, String group, String resource, String name, String extra) {
    return "{\"requestReceivedTimestamp\":\"" + at + "\",\"verb\":\"update\",\"user\":{\"username\":\"steward-operator\"},"
        + "\"userAgent\":\"steward/" + writer + "\",\"objectRef\":{\"resource\":\"" + resource + "\",\"namespace\":\""
        + NS + "\",\"name\":\"" + name + "\",\"apiGroup\":\"" + group + "\"},\"responseStatus\":{\"code\":200}"
        + extra + "}";
  }
}
