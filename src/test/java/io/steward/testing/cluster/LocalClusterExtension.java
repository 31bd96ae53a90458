package io.steward.testing.cluster;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One local cluster per JVM, started by the first class that needs it and stopped when the JVM's
 * tests end; each test class gets a fresh namespace. See {@link LocalClusterTest}.
 */
public final class LocalClusterExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(LocalClusterExtension.class);
  private static final String CLUSTER = "cluster";
  private static final String NAMESPACE = "namespace";

  /** The shared cluster, started on first use; also for code outside JUnit's lifecycle. */
  public static synchronized LocalCluster shared(ExtensionContext context, LocalCluster.Shape shape) {
    LocalCluster cluster = context.getRoot().getStore(STORE).computeIfAbsent(CLUSTER,
        key -> LocalCluster.start(shape, Path.of("target", "local-cluster-it" + forkSuffix())), LocalCluster.class);
    cluster.ensure(shape);
    return cluster;
  }

  /** Keeps this JVM's slot (see {@link #forkSuffix}) until it exits. */
  private static FileChannel slot;

  /**
   * Test JVMs run side by side (failsafe's forkCount): each takes the first free slot, held by a file
   * lock while it lives, and has its cluster in that slot's directory (the same one on every run).
   */
  private static synchronized String forkSuffix() {
    try {
      Files.createDirectories(Path.of("target"));
      for (int number = 1; slot == null; number++) {
        FileChannel channel = FileChannel.open(Path.of("target", "local-cluster-it-" + number + ".lock"),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        if (channel.tryLock() != null) {
          slot = channel;
          slotNumber = number;
        } else {
          channel.close();
        }
      }
      return "-" + slotNumber;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int slotNumber;

  @Override
  public void beforeAll(ExtensionContext context) throws ApiException {
    LocalClusterTest settings = context.getRequiredTestClass().getAnnotation(LocalClusterTest.class);
    LocalCluster cluster = shared(context, settings == null ? LocalCluster.Shape.API : settings.shape());
    String name = (context.getRequiredTestClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1-$2")
        + "-" + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20), 36))
        .toLowerCase(Locale.ROOT);
    name = name.length() > 63 ? name.substring(name.length() - 63) : name;
    new CoreV1Api(cluster.adminClient()).createNamespace(new V1Namespace().metadata(
        new V1ObjectMeta().name(name).labels(Map.of("steward.io/test-class", context.getRequiredTestClass().getSimpleName()))))
        .execute();
    context.getStore(STORE).put(NAMESPACE, new TestNamespace(name));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    TestNamespace namespace = context.getStore(STORE).get(NAMESPACE, TestNamespace.class);
    LocalCluster cluster = context.getRoot().getStore(STORE).get(CLUSTER, LocalCluster.class);
    if (namespace == null || cluster == null || !cluster.apiServer().isRunning()) {
      return;
    }
    try {
      new CoreV1Api(cluster.adminClient()).deleteNamespace(namespace.name()).execute();
    } catch (ApiException e) {
      // best effort: a namespace left behind dies with the cluster
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == LocalCluster.class || type == TestNamespace.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (parameter.getParameter().getType() == LocalCluster.class) {
      return context.getRoot().getStore(STORE).get(CLUSTER, LocalCluster.class);
    }
    return context.getStore(STORE).get(NAMESPACE, TestNamespace.class);
  }
}
