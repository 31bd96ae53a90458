package io.steward.testing.cluster;

import com.google.gson.GsonBuilder;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Figures of the local control plane: start time of each shape (median of 5 starts), peak RSS of
 * the running FULL control plane under a small workload, and the size of the build cache. Writes
 * target/bench/controlplane.json and .md. Part of {@code mvn verify -Pbench}, which sets
 * steward.controlplane.figures; a plain {@code mvn verify} skips it. (A test rather than a main:
 * {@code mvn spring-boot:test-run} needs LocalStewardApplication to be the only test-scope main.)
 */
class ControlPlaneFiguresIT {
  @Test
  @EnabledIfSystemProperty(named = "steward.controlplane.figures", matches = "true")
  void measuresStartTimesAndMemory() throws Exception {
    int starts = Integer.getInteger("steward.controlplane.figures.starts", 5);
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("date", Instant.now().toString());
    figures.put("cores", Runtime.getRuntime().availableProcessors());
    for (LocalCluster.Shape shape : LocalCluster.Shape.values()) {
      List<Long> millis = new ArrayList<>();
      for (int i = 0; i < starts; i++) {
        long start = System.nanoTime();
        try (LocalCluster cluster = LocalCluster.start(shape, Path.of("target", "controlplane-figures"))) {
          millis.add((System.nanoTime() - start) / 1_000_000);
          if (shape == LocalCluster.Shape.FULL && i == 0) {
            figures.put("FULL peak RSS under 20 Deployments x 2 pods, MiB", peakRssUnderLoad(cluster));
          }
        }
      }
      figures.put(shape + " start ms (each)", millis);
      figures.put(shape + " start ms (median)", millis.stream().sorted().toList().get(millis.size() / 2));
    }
    Path cache = Path.of(System.getProperty("user.home"), ".cache", "steward", "controlplane");
    figures.put("binary cache MiB (~/.cache/steward/controlplane)", du(cache) / (1 << 20));
    figures.put("Go build cache MiB (~/.cache/go-build)", du(Path.of(System.getProperty("user.home"), ".cache", "go-build")) / (1 << 20));
    figures.put("Go module cache MiB (~/go/pkg/mod)", du(Path.of(System.getProperty("user.home"), "go", "pkg", "mod")) / (1 << 20));

    Path out = Path.of("target", "bench");
    Files.createDirectories(out);
    Files.writeString(out.resolve("controlplane.json"), new GsonBuilder().setPrettyPrinting().create().toJson(figures));
    StringBuilder md = new StringBuilder("| figure | value |\n| --- | --- |\n");
    figures.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    Files.writeString(out.resolve("controlplane.md"), md.toString());
    System.out.println(md);
  }

  private static long peakRssUnderLoad(LocalCluster cluster) throws Exception {
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    for (int i = 0; i < 20; i++) {
      Map<String, String> labels = Map.of("app", "load-" + i);
      apps.createNamespacedDeployment("default", new V1Deployment().metadata(new V1ObjectMeta().name("load-" + i))
          .spec(new V1DeploymentSpec().replicas(2).selector(new V1LabelSelector().matchLabels(labels))
              .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                  .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("nginx")))))))
          .execute();
    }
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      long available = apps.listNamespacedDeployment("default").execute().getItems().stream()
          .filter(d -> d.getStatus() != null && Integer.valueOf(2).equals(d.getStatus().getAvailableReplicas())).count();
      if (available == 20) {
        break;
      }
      Thread.sleep(500);
    }
    long kib = 0;
    for (ComponentProcess component : cluster.components()) {
      kib += Files.readAllLines(Path.of("/proc", Long.toString(component.pid()), "status")).stream()
          .filter(l -> l.startsWith("VmHWM:")).mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).sum();
    }
    return kib / 1024;
  }

  private static long du(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
