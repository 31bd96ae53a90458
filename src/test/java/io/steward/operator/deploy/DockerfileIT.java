package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.steward.operator.support.OperatorImage;
import io.steward.operator.support.OperatorProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * integration test, so it runs after packaging), the layers Spring Boot reports for it, and the
 * image's file system assembled as the Dockerfile says ({@link ContainerImage}), started with its
 * ENTRYPOINT.
 */
class DockerfileIT {
  private static final Path WORK = Path.of("target", "dockerfile-it").toAbsolutePath();
  private static ContainerImage image;
  private static ContainerImage.Assembled assembled;

  @BeforeAll
  static void readDockerfile() {
    image = ContainerImage.read();
  }

  @Test
  void buildsWithAJdk17AndRunsOnAJre17() {
    assertThat(image.instructions("FROM ")).hasSize(2);
    assertThat(image.instructions("FROM ").get(0)).isEqualTo("FROM ${BUILD_IMAGE} AS build");
    assertThat(image.args().get("BUILD_IMAGE")).matches("maven:3\\.9[^ ]*-eclipse-temurin-17");
    assertThat(image.instructions("FROM ").get(1)).isEqualTo("FROM ${RUNTIME_IMAGE}");
    assertThat(image.args().get("RUNTIME_IMAGE")).matches("eclipse-temurin:17[^ ]*-jre[^ ]*|eclipse-temurin:17-jre");
  }

  @Test
  void copiesTheJarThatMavenPackageBuilds() throws IOException {
    String jar = image.args().get("JAR_FILE");
    String pom = Files.readString(Path.of("pom.xml"));
    String version = pom.replaceAll("(?s).*?<artifactId>steward</artifactId>\\s*<version>([^<]+)</version>.*", "$1");
    assertThat(jar).isEqualTo("target/steward-" + version + ".jar");
    assertThat(Path.of(jar)).as("the jar `mvn package` builds").isRegularFile();
    assertThat(Path.of(jar).toAbsolutePath()).as("the jar the operator tests run").isEqualTo(OperatorProcess.JAR.toAbsolutePath());
    // What the build stage copies in exists, and .dockerignore lets it through.
    assertThat(image.instructions("COPY pom.xml")).hasSize(1);
    assertThat(image.instructions("COPY src/main src/main")).hasSize(1);
    assertThat(Files.readAllLines(Path.of(".dockerignore"))).contains("*", "!pom.xml", "!src/main");
    assertThat(image.instructions("RUN ")).anySatisfy(run -> assertThat(run)
        .startsWith("RUN java -Djarmode=tools -jar ${JAR_FILE} extract --layers"));
  }

  @Test
  void copiesEverySpringBootLayerInTheOrderSpringBootListsThem() {
    List<String> layers = ContainerImage.run(List.of(ContainerImage.java(), "-Djarmode=tools", "-jar",
            OperatorProcess.JAR.toAbsolutePath().toString(), "list-layers"), Path.of("."), Map.of(),
            Path.of("target", "list-layers.log"))
        .lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("Picked up")).toList();
    assertThat(layers).containsExactly("dependencies", "spring-boot-loader", "snapshot-dependencies", "application");
    assertThat(image.copiedLayers()).isEqualTo(layers);
  }

  @Test
  void runsAsANumericNonRootUserThatTheManifestsAgreeWith() throws IOException {
    assertThat(image.instructions("USER ")).hasSize(1);
    Matcher user = Pattern.compile("^USER (\\d+):(\\d+)$").matcher(image.instructions("USER ").get(0));
    assertThat(user.matches()).as("USER uid:gid, both numeric: %s", image.instructions("USER ")).isTrue();
    int uid = Integer.parseInt(user.group(1));
    assertThat(uid).as("uid").isNotZero();
    assertThat(Integer.parseInt(user.group(2))).as("gid").isNotZero();
    // The USER is in the runtime stage, so it applies to the running image.
    assertThat(image.runtimeStage()).contains(image.instructions("USER ").get(0));

    Map<String, Object> values = new Yaml().load(Files.readString(StewardChart.CHART.resolve("values.yaml")));
    assertThat(Manifests.value(values, "podSecurityContext", "runAsUser")).isEqualTo(uid);
    assertThat(Manifests.value(values, "podSecurityContext", "runAsNonRoot")).isEqualTo(true);
    assertThat(Files.readString(Path.of("config", "manager", "manager.yaml"))).contains("runAsUser: " + uid);
  }

  @Test
  void containerAwareJvmFlags() {
    assertThat(image.javaToolOptions()).contains("-XX:MaxRAMPercentage=").contains("-XX:+ExitOnOutOfMemoryError")
        .doesNotContain("-Xmx").doesNotContain("-XX:-UseContainerSupport");
  }

  /**
   * The image's /app, assembled: the layers, and the class-data-sharing archive its training run
   * made. Started with the ENTRYPOINT and no API server to talk to, it must map the archive, get as
   * far as Steward's own configuration and stop with Steward's message.
   */
  @Test
  void entrypointStartsTheApplicationWithItsClassDataSharingArchive() throws Exception {
    ContainerImage.Assembled assembled = assembled();
    Path app = assembled.app();
    assertThat(app.resolve("steward.jar")).isRegularFile();
    try (var libs = Files.list(app.resolve("lib"))) {
      assertThat(libs.filter(p -> p.getFileName().toString().startsWith("client-java-"))).isNotEmpty();
    }
    assertThat(image.entrypoint()).containsExactly("java", "-XX:SharedArchiveFile=steward.jsa",
        "-Dspring.aot.enabled=true", "-jar", "steward.jar");
    assertThat(image.entrypoint().subList(1, 3)).as("what the tests' operators run").isEqualTo(OperatorImage.ENTRYPOINT_OPTIONS);
    assertThat(app.resolve("steward.jsa")).as("the archive the training run made").isRegularFile();

    List<String> command = assembled.command("-Xlog:cds=info"); // to see that the archive is mapped
    command.addAll(List.of("--server.port=0", "--server.address=127.0.0.1"));
    Path log = WORK.resolve("entrypoint.log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(app.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    builder.environment().put("HOME", Files.createDirectories(WORK.resolve("home")).toString());
    builder.environment().put("JAVA_TOOL_OPTIONS", image.javaToolOptions());
    Process process = builder.start();
    try {
      process.getOutputStream().close();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the application stops by itself").isTrue();
      String output = Files.readString(log);
      assertThat(process.exitValue()).as(output).isNotZero();
      assertThat(output).contains("Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAMPercentage=")
          .contains("Mapped dynamic region")
          .contains("Starting AOT-processed StewardApplication").contains("No Kubernetes API server configured");
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  /**
   * The image starts with the bean definitions Spring AOT prepared for the packaged settings. Sharding
   * on, as the chart sets it, keeps them and gives {@code /actuator/shards}; a setting that selects
   * other beans (here a profile) must not be ignored: it sets them aside, and single-leader mode
   * answers 404 there. The kubeconfig points nowhere: the beans, not the cluster, are under test.
   */
  @Test
  void bothModesStartWithThePreparedBeansAndOtherSettingsSetThemAside() throws Exception {
    ContainerImage.Assembled assembled = assembled();
    Path nowhere = Path.of("src", "main", "docker", "cds-training.kubeconfig");
    String options = image.javaToolOptions();
    try (OperatorProcess sharded = OperatorProcess.start(nowhere, "dockerfile-it-sharded", assembled.app(),
        assembled.jar(), assembled.jvmOptions(), Map.of(),
        Map.of("JAVA_TOOL_OPTIONS", options, "STEWARD_SHARDING_ENABLED", "true"));
        OperatorProcess leader = OperatorProcess.start(nowhere, "dockerfile-it-leader", assembled.app(),
            assembled.jar(), assembled.jvmOptions(), Map.of(),
            Map.of("JAVA_TOOL_OPTIONS", options, "STEWARD_SHARDING_ENABLED", "false", "SPRING_PROFILES_ACTIVE",
                "dockerfile-it"))) {
      assertThat(answer(sharded, "/actuator/shards").code()).as(sharded.logTail(30)).isEqualTo(200);
      assertThat(Files.readString(sharded.log())).contains("Starting AOT-processed StewardApplication")
          .doesNotContain("Bean definitions resolved at start");

      assertThat(answer(leader, "/actuator/leader").code()).as(leader.logTail(30)).isEqualTo(200);
      assertThat(leader.get("/actuator/shards").code()).isEqualTo(404);
      assertThat(Files.readString(leader.log()))
          .contains("Bean definitions resolved at start, not those prepared at build time: "
              + "profiles dockerfile-it are active")
          .contains("Starting StewardApplication").doesNotContain("AOT-processed");
    }
  }

  /** The image's file system, assembled once for the tests that start it. */
  private static synchronized ContainerImage.Assembled assembled() {
    if (assembled == null) {
      assembled = image.assemble(WORK);
    }
    return assembled;
  }

  /** The first answer to GET {@code path} once the process serves HTTP (within a minute), or its last. */
  private static OperatorProcess.Response answer(OperatorProcess process, String path) {
    return await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
        .until(() -> process.get(path), response -> response.code() != 0 || !process.isRunning());
  }
}
