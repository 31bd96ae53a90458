package io.steward.operator.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The Helm chart in charts/steward, linted and rendered by the helm library embedded in helm-java
 * (helm 3.21, offline), the way `helm lint` and `helm template` would.
 */
public final class StewardChart {
  public static final Path CHART = Path.of("charts", "steward");
  public static final Path CHART_CRD = CHART.resolve("crds").resolve("steward.io_webapps.yaml");
  /** The release the local control plane is built from; helm's offline default (1.20) is older than the chart allows. */
  public static final String KUBE_VERSION = "v" + System.getProperty("steward.controlplane.release", "1.37.2").replaceFirst("^v", "");
  private static final Path WORK = Path.of("target", "helm-it");

  private StewardChart() {}

  /** `helm template RELEASE charts/steward -n NAMESPACE -f VALUES`; values may be empty. */
  /**
   * The JVM options a pod of the chart runs with (default values), for a JVM outside a container:
   * the chart's JAVA_TOOL_OPTIONS, and what the container would decide: its memory limit as all the
   * RAM there is, and the collector the JVM picks by itself there (see {@link RenderedChart#containerCollector}).
   */
  public static List<String> podJvmOptions() {
    RenderedChart chart = RenderedChart.render("steward", "steward-system", Map.of());
    List<String> options = new ArrayList<>(List.of("-XX:MaxRAM=" + chart.memoryLimitBytes()));
    options.addAll(chart.containerCollector());
    options.addAll(List.of(chart.env("pod").get("JAVA_TOOL_OPTIONS").trim().split("\\s+")));
    return options;
  }

  public static Manifests template(String release, String namespace, Map<String, Object> values) {
    return Manifests.parse(templateCommand(release, namespace, values).call());
  }

  /**
   * The chart's hooks (the `helm test` pod), which helm-java's template leaves out: rendered from a
   * copy of the chart whose hook annotation is renamed, so they come out as ordinary objects.
   */
  public static Manifests hooks(String release, String namespace, Map<String, Object> values) {
    Path copy = WORK.resolve("hooks-" + UUID.randomUUID());
    try {
      DeployTesting.copyTree(CHART, copy);
      try (var files = Files.walk(copy.resolve("templates"))) {
        for (Path file : files.filter(Files::isRegularFile).toList()) {
          Files.writeString(file, Files.readString(file).replace("helm.sh/hook:", RENDERED_HOOK + ":"));
        }
      }
      TemplateCommand command = new Helm(copy).template().withName(release).withNamespace(namespace)
          .withKubeVersion(KUBE_VERSION);
      if (!values.isEmpty()) {
        command = command.withValuesFile(write(values));
      }
      Manifests all = Manifests.parse(command.call());
      List<Map<String, Object>> hooks = all.where(o -> Manifests.map(o, "metadata", "annotations").containsKey(RENDERED_HOOK));
      DumperOptions options = new DumperOptions();
      options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
      return new Manifests(new Yaml(options).dumpAll(hooks.iterator()), hooks);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      deleteTree(copy);
    }
  }

  /** What {@link #hooks} renames helm.sh/hook to; its value is the hook's. */
  public static final String RENDERED_HOOK = "rendered.steward.io/hook";

  /** The same, but returns helm's error message instead of throwing it; null when rendering succeeded. */
  public static String templateError(String release, String namespace, Map<String, Object> values) {
    try {
      templateCommand(release, namespace, values).call();
      return null;
    } catch (RuntimeException e) {
      return e.getMessage();
    }
  }

  private static TemplateCommand templateCommand(String release, String namespace, Map<String, Object> values) {
    TemplateCommand command = new Helm(CHART).template().withName(release).withNamespace(namespace)
        .withKubeVersion(KUBE_VERSION);
    if (!values.isEmpty()) {
      command = command.withValuesFile(write(values));
    }
    return command;
  }

  /** `helm lint --strict` of the chart as it is. */
  public static LintResult lint() {
    return new Helm(CHART).lint().strict().call();
  }

  /**
   * `helm lint --strict` with other values. helm-java's lint takes no values, so this lints a copy of
   * the chart whose values.yaml has the top-level keys of {@code values} replaced.
   */
  public static LintResult lint(Map<String, Object> values) {
    Path copy = WORK.resolve("lint-" + UUID.randomUUID());
    try {
      DeployTesting.copyTree(CHART, copy);
      Path valuesFile = copy.resolve("values.yaml");
      Map<String, Object> merged = new Yaml().load(Files.readString(valuesFile));
      merged.putAll(values);
      Files.writeString(valuesFile, dump(merged));
      return new Helm(copy).lint().strict().call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      deleteTree(copy);
    }
  }

  static Path write(Map<String, Object> values) {
    try {
      Files.createDirectories(WORK);
      Path file = WORK.resolve("values-" + UUID.randomUUID() + ".yaml");
      Files.writeString(file, dump(values));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String dump(Map<String, Object> values) {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return new Yaml(options).dump(values);
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
