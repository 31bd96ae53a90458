package io.steward.testing.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The harness itself: both shapes work, components restart, and nothing outlives a stop. */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class LocalClusterIT {

  @Test
  void fullClusterRunsADeploymentUntilAvailable(LocalCluster cluster, TestNamespace ns) throws ApiException {
    AppsV1Api apps = new AppsV1Api(cluster.adminClient());
    Map<String, String> labels = Map.of("app", "web");
    apps.createNamespacedDeployment(ns.name(), new V1Deployment()
        .metadata(new V1ObjectMeta().name("web"))
        .spec(new V1DeploymentSpec().replicas(3).selector(new V1LabelSelector().matchLabels(labels))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("web").image("nginx:1.27")))))))
        .execute();

    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      V1Deployment deployment = apps.readNamespacedDeployment("web", ns.name()).execute();
      assertThat(deployment.getStatus().getAvailableReplicas()).isEqualTo(3);
      assertThat(deployment.getStatus().getConditions())
          .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Available=True"));
    });
  }

  @Test
  void deletingAnOwnerGarbageCollectsItsDependents(LocalCluster cluster, TestNamespace ns) throws ApiException {
    CoreV1Api core = new CoreV1Api(cluster.adminClient());
    V1ConfigMap owner = core.createNamespacedConfigMap(ns.name(),
        new V1ConfigMap().metadata(new V1ObjectMeta().name("owner"))).execute();
    core.createNamespacedConfigMap(ns.name(), new V1ConfigMap().metadata(new V1ObjectMeta().name("dependent")
        .ownerReferences(List.of(new V1OwnerReference().apiVersion("v1").kind("ConfigMap")
            .name("owner").uid(owner.getMetadata().getUid()).controller(true))))).execute();

    core.deleteNamespacedConfigMap("owner", ns.name()).execute();

    await().atMost(Duration.ofSeconds(30)).until(() -> !exists(core, ns.name(), "dependent"));
  }

  @Test
  void apiClusterRestartsComponentsKeepingDataAndLeavesNoProcessBehind() throws ApiException {
    List<Long> pids;
    try (LocalCluster own = LocalCluster.start(LocalCluster.Shape.API, Path.of("target", "local-cluster-harness"))) {
      CoreV1Api core = new CoreV1Api(own.adminClient());
      core.createNamespacedConfigMap("default", new V1ConfigMap()
          .metadata(new V1ObjectMeta().name("kept")).data(Map.of("k", "v"))).execute();

      own.apiServer().stop();
      assertThat(own.apiServer().isRunning()).isFalse();
      own.restart(own.apiServer());
      own.etcd().stop();
      own.restart(own.etcd());

      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
          assertThat(core.readNamespacedConfigMap("kept", "default").execute().getData()).containsEntry("k", "v"));
      pids = own.components().stream().map(ComponentProcess::pid).toList();
      assertThat(pids).hasSize(2).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isPresent());
    }
    assertThat(pids).allSatisfy(pid ->
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid %d alive", pid).isFalse());
  }

  @Test
  void componentsDieWithAJvmKilledByKillDashNine() throws Exception {
    // A throwaway JVM starts a cluster and is then SIGKILLed: no shutdown hook runs, so only the
    // components' own watch on their stdin pipe can stop them.
    Path dir = Path.of("target", "jvm-death").toAbsolutePath();
    java.nio.file.Files.createDirectories(dir);
    Path source = dir.resolve("StartCluster.java");
    java.nio.file.Files.writeString(source, """
        public class StartCluster {
          public static void main(String[] args) throws Exception {
            var cluster = io.steward.testing.cluster.LocalCluster.start(
                io.steward.testing.cluster.LocalCluster.Shape.API, java.nio.file.Path.of(args[0]));
            for (var component : cluster.components()) System.out.println("PID " + component.pid());
            System.out.println("READY");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
          }
        }
        """);
    Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        "-Dsteward.controlplane.source=" + System.getProperty("steward.controlplane.source", "src/test/controlplane"),
        source.toString(), dir.resolve("cluster").toString())
        .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("jvm.log").toFile())).start();
    List<Long> pids = new java.util.ArrayList<>();
    try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(jvm.getInputStream()))) {
      for (String line = lines.readLine(); line != null && !line.equals("READY"); line = lines.readLine()) {
        if (line.startsWith("PID ")) {
          pids.add(Long.parseLong(line.substring(4)));
        }
      }
      assertThat(pids).as("components started by the child JVM").hasSize(2);
      assertThat(pids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isPresent());

      jvm.destroyForcibly().waitFor();

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(pids).allSatisfy(pid ->
          assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid %d alive", pid).isFalse()));
    } finally {
      jvm.destroyForcibly();
      pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }
  }

  private static boolean exists(CoreV1Api core, String namespace, String name) {
    try {
      core.readNamespacedConfigMap(name, namespace).execute();
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw new IllegalStateException(e);
    }
  }
}
