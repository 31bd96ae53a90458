package io.steward.operator;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.steward.operator.support.Crds;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.LocalCluster;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.event.EventListener;

/**
 * {@code mvn spring-boot:test-run}: Steward with no cluster of your own. Starts a FULL local cluster
 * under target/local-cluster (etcd, kube-apiserver, controller-manager, scheduler, kwok), installs
 * the CRD from config/crd, starts the operator against it and applies config/samples. Ctrl-C stops
 * everything.
 */
public final class LocalStewardApplication {
  private static final Logger log = LoggerFactory.getLogger(LocalStewardApplication.class);
  private static final Path CLUSTER_DIR = Path.of("target", "local-cluster");
  private static LocalCluster cluster;

  public static void main(String[] args) {
    long start = System.nanoTime();
    cluster = LocalCluster.start(LocalCluster.Shape.FULL, CLUSTER_DIR);
    Crds.installWebAppCrd(cluster.adminClient());
    log.info("Local cluster ready in {} ms", (System.nanoTime() - start) / 1_000_000);
    String[] withCluster = Stream.concat(Arrays.stream(args), Stream.of(
        "--steward.kubeconfig=" + cluster.kubeconfigFor("steward-operator"),
        "--steward.leader-election.lease-namespace=default")).toArray(String[]::new);
    SpringApplication.from(StewardApplication::main).with(LocalClusterSamples.class).run(withCluster);
  }

  /** Applies the samples once Steward runs, and tells the user how to look at them. */
  @TestConfiguration(proxyBeanMethods = false)
  static class LocalClusterSamples {
    @EventListener(ApplicationReadyEvent.class)
    void applySamples() throws IOException {
      DynamicKubernetesApi webApps = new DynamicKubernetesApi(WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL,
          cluster.adminClient());
      try (Stream<Path> samples = Files.list(Path.of("config", "samples"))) {
        for (Path sample : samples.filter(p -> p.getFileName().toString().startsWith("steward_")).toList()) {
          try (Reader reader = Files.newBufferedReader(sample)) {
            JsonObject object = new Gson().toJsonTree(new org.yaml.snakeyaml.Yaml().load(reader)).getAsJsonObject();
            object.getAsJsonObject("metadata").addProperty("namespace", "default");
            var response = webApps.create(new DynamicKubernetesObject(object));
            log.info("Applied {}: {}", sample, response.isSuccess() ? "created" : response.getStatus().getMessage());
          }
        }
      }
      log.info("Steward runs against a local cluster. In another shell: export KUBECONFIG={} && kubectl get webapps -A",
          cluster.kubeconfig());
    }
  }
}
