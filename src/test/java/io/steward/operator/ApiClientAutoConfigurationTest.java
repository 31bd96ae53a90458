package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiClient;
import io.steward.operator.runtime.OperatorClients;
import io.steward.operator.runtime.StewardProperties;
import io.kubernetes.client.spring.extended.controller.config.KubernetesInformerAutoConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;

/**
 * The ApiClient comes from client-java-spring-integration 20's auto-configuration (on client-java
 * 25 and Boot 4), unless steward.kubeconfig names a file; Steward's own informer factory replaces
 * the auto-configured one.
 */
class ApiClientAutoConfigurationTest {
  @EnableConfigurationProperties(StewardProperties.class)
  static class Properties {}

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ValidationAutoConfiguration.class, KubernetesInformerAutoConfiguration.class))
      .withUserConfiguration(Properties.class, ClientConfiguration.class)
      // the write fence counts its refusals
      .withBean(io.micrometer.core.instrument.MeterRegistry.class, io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
      .withPropertyValues("kubernetes.manifests.enabled=false");

  @Test
  void theAutoConfiguredClientIsUsedByDefault() {
    runner.run(context -> {
      if (context.getStartupFailure() != null) {
        // No KUBECONFIG and no ~/.kube/config here: the auto-configured client fell back to
        // localhost:8080, and Steward refuses to start on that with a message saying what to do.
        assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("No Kubernetes API server configured");
      } else {
        assertThat(context.getBeanNamesForType(ApiClient.class)).containsExactly("defaultApiClient");
        assertThat(context.getBean(OperatorClients.class).requests()).isSameAs(context.getBean(ApiClient.class));
      }
    });
  }

  @Test
  void aConfiguredKubeconfigReplacesIt(@TempDir Path dir) throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}]
        users: [{name: u, user: {token: abc}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """);
    runner.withPropertyValues("steward.kubeconfig=" + kubeconfig).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBeanNamesForType(ApiClient.class)).containsExactly("kubeconfigApiClient");
      OperatorClients clients = context.getBean(OperatorClients.class);
      assertThat(clients.requests().getBasePath()).isEqualTo("https://127.0.0.1:6443");
      assertThat(clients.watches().getBasePath()).isEqualTo("https://127.0.0.1:6443");
      assertThat(clients.watches().getHttpClient().readTimeoutMillis()).as("watches have no read timeout").isZero();
      assertThat(clients.requests().getHttpClient().readTimeoutMillis()).isPositive();
      assertThat(context.getBeanNamesForType(io.kubernetes.client.informer.SharedInformerFactory.class))
          .containsExactly("sharedInformerFactory");
    });
  }
}
