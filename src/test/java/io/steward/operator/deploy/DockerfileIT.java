package io.steward.operator.deploy;

import io.steward.operator.support.OperatorProcess;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Dockerfile, checked without a Docker engine: against the jar `mvn package` built (an
 * integration test, so it runs after packaging), the layers Spring Boot reports for it, and an image
 * file system rebuilt the way the Dockerfile's COPY steps would, started with its ENTRYPOINT.
 */
class DockerfileIT {
  private static final Path DOCKERFILE = Path.of("Dockerfile");
  private static final Pattern LAYER_COPY = Pattern.compile(
      "^COPY --from=build /workspace/target/extracted/([a-z-]+)/ \\./$");
  private static List<String> instructions;
  private static Map<String, String> args;

  @BeforeAll
  static void readDockerfile() throws IOException {
    instructions = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(DOCKERFILE)) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      if (trimmed.endsWith("\\")) {
        current.append(trimmed, 0, trimmed.length() - 1).append(' ');
        continue;
      }
      instructions.add(current.append(trimmed).toString());
      current.setLength(0);
    }
    args = new LinkedHashMap<>();
    for (String instruction : instructions("ARG ")) {
      String[] nameValue = instruction.substring(4).split("=", 2);
      args.put(nameValue[0], nameValue.length > 1 ? nameValue[1] : null);
    }
  }

  @Test
  void buildsWithAJdk17AndRunsOnAJre17() {
    assertThat(instructions("FROM ")).hasSize(2);
    assertThat(instructions("FROM ").get(0)).isEqualTo("FROM ${BUILD_IMAGE} AS build");
    assertThat(args.get("BUILD_IMAGE")).matches("maven:3\\.9[^ ]*-eclipse-temurin-17");
    assertThat(instructions("FROM ").get(1)).isEqualTo("FROM ${RUNTIME_IMAGE}");
    assertThat(args.get("RUNTIME_IMAGE")).matches("eclipse-temurin:17[^ ]*-jre[^ ]*|eclipse-temurin:17-jre");
  }

  @Test
  void copiesTheJarThatMavenPackageBuilds() throws IOException {
    String jar = args.get("JAR_FILE");
    String pom = Files.readString(Path.of("pom.xml"));
    String version = pom.replaceAll("(?s).*?<artifactId>steward</artifactId>\\s*<version>([^<]+)</version>.*", "$1");
    assertThat(jar).isEqualTo("target/steward-" + version + ".jar");
    assertThat(Path.of(jar)).as("the jar `mvn package` builds").isRegularFile();
    assertThat(Path.of(jar).toAbsolutePath()).as("the jar the operator tests run").isEqualTo(OperatorProcess.JAR.toAbsolutePath());
    // What the build stage copies in exists, and .dockerignore lets it through.
    assertThat(instructions("COPY pom.xml")).hasSize(1);
    assertThat(instructions("COPY src/main src/main")).hasSize(1);
    assertThat(Files.readAllLines(Path.of(".dockerignore"))).contains("*", "!pom.xml", "!src/main");
    assertThat(instructions("RUN ")).anySatisfy(run -> assertThat(run)
        .contains("java -Djarmode=tools -jar ${JAR_FILE} extract --layers --launcher --destination target/extracted"));
  }

  @Test
  void copiesEverySpringBootLayerInTheOrderSpringBootListsThem() {
    List<String> layers = run(List.of(java(), "-Djarmode=tools", "-jar", OperatorProcess.JAR.toString(), "list-layers"))
        .lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    assertThat(layers).containsExactly("dependencies", "spring-boot-loader", "snapshot-dependencies", "application");
    assertThat(copiedLayers()).isEqualTo(layers);
  }

  @Test
  void runsAsANumericNonRootUserThatTheManifestsAgreeWith() throws IOException {
    assertThat(instructions("USER ")).hasSize(1);
    Matcher user = Pattern.compile("^USER (\\d+):(\\d+)$").matcher(instructions("USER ").get(0));
    assertThat(user.matches()).as("USER uid:gid, both numeric: %s", instructions("USER ")).isTrue();
    int uid = Integer.parseInt(user.group(1));
    assertThat(uid).as("uid").isNotZero();
    assertThat(Integer.parseInt(user.group(2))).as("gid").isNotZero();
    // The USER comes after the last FROM, so it applies to the runtime image.
    assertThat(instructions.indexOf(instructions("USER ").get(0))).isGreaterThan(instructions.lastIndexOf(instructions("FROM ").get(1)));

    Map<String, Object> values = new Yaml().load(Files.readString(StewardChart.CHART.resolve("values.yaml")));
    assertThat(Manifests.value(values, "podSecurityContext", "runAsUser")).isEqualTo(uid);
    assertThat(Manifests.value(values, "podSecurityContext", "runAsNonRoot")).isEqualTo(true);
    assertThat(Files.readString(Path.of("config", "manager", "manager.yaml"))).contains("runAsUser: " + uid);
  }

  @Test
  void containerAwareJvmFlags() {
    assertThat(instructions("ENV JAVA_TOOL_OPTIONS=")).singleElement().satisfies(env -> assertThat(env)
        .contains("-XX:MaxRAMPercentage=").contains("-XX:+ExitOnOutOfMemoryError")
        .doesNotContain("-Xmx").doesNotContain("-XX:-UseContainerSupport"));
  }

  /**
   * The image's /app, rebuilt: the jar extracted as the build stage does, the layers copied into one
   * directory in the Dockerfile's order, then the ENTRYPOINT started there. With no API server to talk
   * to it must get as far as Steward's own configuration and stop with Steward's message.
   */
  @Test
  void entrypointStartsTheApplicationFromTheCopiedLayers() throws Exception {
    Path work = Path.of("target", "dockerfile-it").toAbsolutePath();
    deleteTree(work);
    Path extracted = work.resolve("extracted");
    run(List.of(java(), "-Djarmode=tools", "-jar", OperatorProcess.JAR.toAbsolutePath().toString(), "extract",
        "--layers", "--launcher", "--destination", extracted.toString()));
    Path app = Files.createDirectories(work.resolve("app"));
    for (String layer : copiedLayers()) {
      DeployTesting.copyTree(extracted.resolve(layer), app);
    }
    assertThat(app.resolve("org/springframework/boot/loader/launch/JarLauncher.class")).isRegularFile();
    assertThat(app.resolve("BOOT-INF/classes/io/steward/operator/StewardApplication.class")).isRegularFile();
    try (var libs = Files.list(app.resolve("BOOT-INF/lib"))) {
      assertThat(libs.filter(p -> p.getFileName().toString().startsWith("client-java-"))).isNotEmpty();
    }

    List<String> entrypoint = new ArrayList<>();
    JsonParser.parseString(instructions("ENTRYPOINT ").get(0).substring("ENTRYPOINT ".length())).getAsJsonArray()
        .forEach(e -> entrypoint.add(e.getAsString()));
    assertThat(entrypoint).containsExactly("java", "org.springframework.boot.loader.launch.JarLauncher");
    List<String> command = new ArrayList<>(entrypoint);
    command.set(0, java());
    command.addAll(List.of("--server.port=0", "--server.address=127.0.0.1"));
    Path log = work.resolve("entrypoint.log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(app.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    builder.environment().put("HOME", Files.createDirectories(work.resolve("home")).toString());
    String toolOptions = instructions("ENV JAVA_TOOL_OPTIONS=").get(0).substring("ENV JAVA_TOOL_OPTIONS=".length());
    builder.environment().put("JAVA_TOOL_OPTIONS", toolOptions.replaceAll("^\"|\"$", ""));
    Process process = builder.start();
    try {
      process.getOutputStream().close();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the application stops by itself").isTrue();
      String output = Files.readString(log);
      assertThat(process.exitValue()).as(output).isNotZero();
      assertThat(output).contains("Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAMPercentage=")
          .contains("Starting StewardApplication").contains("No Kubernetes API server configured");
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  private static List<String> copiedLayers() {
    List<String> layers = new ArrayList<>();
    for (String copy : instructions("COPY --from=build")) {
      Matcher matcher = LAYER_COPY.matcher(copy);
      assertThat(matcher.matches()).as("a layer COPY: %s", copy).isTrue();
      layers.add(matcher.group(1));
    }
    return layers;
  }

  private static List<String> instructions(String prefix) {
    return instructions.stream().filter(i -> i.startsWith(prefix)).toList();
  }

  private static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  private static String run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).as("%s:%n%s", command, output).isZero();
      return output;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (var paths = Files.walk(root)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
