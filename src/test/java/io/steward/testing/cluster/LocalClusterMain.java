package io.steward.testing.cluster;

import java.nio.file.Path;

/**
 * Starts a local cluster and keeps it running until Ctrl-C: {@code LocalClusterMain [API|FULL] [dir]}.
 * For poking at the control plane with kubectl; `mvn spring-boot:test-run` also starts the operator.
 */
public final class LocalClusterMain {
  public static void main(String[] args) throws InterruptedException {
    LocalCluster.Shape shape = args.length > 0 ? LocalCluster.Shape.valueOf(args[0]) : LocalCluster.Shape.FULL;
    Path dir = Path.of(args.length > 1 ? args[1] : "target/local-cluster");
    long start = System.nanoTime();
    LocalCluster cluster = LocalCluster.start(shape, dir);
    System.out.printf("local cluster (%s) ready in %.1f s: export KUBECONFIG=%s%n", shape,
        (System.nanoTime() - start) / 1e9, cluster.kubeconfig());
    Thread.currentThread().join();
  }
}
