package io.steward.operator.support;

import io.steward.operator.StewardApplication;
import io.steward.testing.cluster.LocalCluster;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Steward running inside the test JVM against the local cluster, watching one namespace, with its
 * own client certificate and User-Agent ({@code steward/<identity>}) so the audit log tells it apart.
 */
public final class InProcessOperator implements AutoCloseable {
  private final ConfigurableApplicationContext context;
  private final String identity;

  private InProcessOperator(ConfigurableApplicationContext context, String identity) {
    this.context = context;
    this.identity = identity;
  }

  public static InProcessOperator start(LocalCluster cluster, String namespace, String identity,
      Map<String, Object> extraProperties) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("steward.kubeconfig", cluster.kubeconfigFor("steward-operator").toString());
    properties.put("steward.namespaces", namespace);
    properties.put("steward.leader-election.identity", identity);
    properties.put("steward.leader-election.lease-namespace", namespace);
    properties.put("server.port", "0");
    properties.putAll(extraProperties);
    // As command-line arguments: they outrank application.yaml, as a user's settings would.
    String[] args = properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue())
        .toArray(String[]::new);
    ConfigurableApplicationContext context = new SpringApplicationBuilder(StewardApplication.class).run(args);
    return new InProcessOperator(context, identity);
  }

  public String userAgent() {
    return "steward/" + identity;
  }

  public <T> T bean(Class<T> type) {
    return context.getBean(type);
  }

  /** Whether the operator's context holds any bean of {@code type}. */
  public boolean hasBean(Class<?> type) {
    return context.getBeanNamesForType(type).length > 0;
  }

  public int port() {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  @Override
  public void close() {
    context.close();
  }
}
