package io.steward.operator.deploy;

import io.steward.operator.support.OperatorProcess;
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

/**
 * Steward's Dockerfile, read and carried out on this machine without a Docker engine: the jar that
 * `mvn package` built, extracted by the build stage's command, the layers copied into one directory
 * in the order of the runtime stage's COPY steps, and the runtime stage's RUN steps run there. What
 * this cannot reproduce is the base images; the JVM is the one running the tests.
 */
public final class ContainerImage {
  public static final Path DOCKERFILE = Path.of("Dockerfile");
  private static final Pattern LAYER_COPY = Pattern.compile(
      "^COPY --from=build /workspace/target/extracted/([a-z-]+)/ \\./$");
  private static final Pattern BIND_MOUNT = Pattern.compile("^--mount=type=bind,source=(\\S+),target=(\\S+) (.*)$");
  private static final Pattern EXTRACT = Pattern.compile(
      "^RUN java -Djarmode=tools -jar \\$\\{JAR_FILE} extract (.*) --destination target/extracted$");

  /** The assembled file system (the image's WORKDIR) and the ENTRYPOINT, whose paths are relative to it. */
  public record Assembled(Path app, List<String> entrypoint) {
    /** The ENTRYPOINT's JVM options: what comes between {@code java} and {@code -jar}. */
    public List<String> jvmOptions() {
      return entrypoint.subList(1, entrypoint.indexOf("-jar"));
    }

    public Path jar() {
      return Path.of(entrypoint.get(entrypoint.indexOf("-jar") + 1));
    }

    /** The ENTRYPOINT as this machine runs it: its {@code java} is the tests' JVM, {@code options} come first. */
    public List<String> command(String... options) {
      List<String> command = new ArrayList<>(entrypoint);
      command.set(0, java());
      command.addAll(1, List.of(options));
      return command;
    }
  }

  private final List<String> instructions;
  private final Map<String, String> args;

  private ContainerImage(List<String> instructions) {
    this.instructions = instructions;
    this.args = new LinkedHashMap<>();
    for (String instruction : instructions("ARG ")) {
      String[] nameValue = instruction.substring(4).split("=", 2);
      args.put(nameValue[0], nameValue.length > 1 ? nameValue[1] : null);
    }
  }

  /** The Dockerfile's instructions, comments dropped and continued lines joined. */
  public static ContainerImage read() {
    List<String> instructions = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    try {
      for (String line : Files.readAllLines(DOCKERFILE)) {
        String trimmed = line.strip();
        if (trimmed.isEmpty() || trimmed.startsWith("#")) {
          continue;
        }
        if (trimmed.endsWith("\\")) {
          current.append(trimmed, 0, trimmed.length() - 1).append(' ');
          continue;
        }
        instructions.add(current.append(trimmed).toString().replaceAll("\\s+", " "));
        current.setLength(0);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ContainerImage(instructions);
  }

  public List<String> instructions() {
    return instructions;
  }

  /** Instructions starting with {@code prefix}, in order. */
  public List<String> instructions(String prefix) {
    return instructions.stream().filter(i -> i.startsWith(prefix)).toList();
  }

  public Map<String, String> args() {
    return args;
  }

  /** The instructions of the last (runtime) stage. */
  public List<String> runtimeStage() {
    int from = 0;
    for (int i = 0; i < instructions.size(); i++) {
      from = instructions.get(i).startsWith("FROM ") ? i : from;
    }
    return instructions.subList(from, instructions.size());
  }

  /** The Spring Boot layers the runtime stage copies, in its order. */
  public List<String> copiedLayers() {
    List<String> layers = new ArrayList<>();
    for (String copy : instructions("COPY --from=build")) {
      Matcher matcher = LAYER_COPY.matcher(copy);
      if (!matcher.matches()) {
        throw new IllegalStateException("not a layer COPY: " + copy);
      }
      layers.add(matcher.group(1));
    }
    return layers;
  }

  /** The runtime stage's {@code ENV JAVA_TOOL_OPTIONS}, unquoted. */
  public String javaToolOptions() {
    List<String> env = instructions("ENV JAVA_TOOL_OPTIONS=");
    if (env.size() != 1) {
      throw new IllegalStateException("expected one ENV JAVA_TOOL_OPTIONS, found " + env);
    }
    return env.get(0).substring("ENV JAVA_TOOL_OPTIONS=".length()).replaceAll("^\"|\"$", "");
  }

  /** The runtime stage's ENTRYPOINT (exec form). */
  public List<String> entrypoint() {
    String entrypoint = instructions("ENTRYPOINT ").get(0).substring("ENTRYPOINT ".length());
    List<String> words = new ArrayList<>();
    com.google.gson.JsonParser.parseString(entrypoint).getAsJsonArray().forEach(e -> words.add(e.getAsString()));
    return words;
  }

  /**
   * Builds the image's /app under {@code work} (emptied first): extract, copy the layers, run the
   * runtime stage's RUN steps in it (with their bind mounts pointing into this repository, and the
   * JAVA_TOOL_OPTIONS the image sets), as the image build would.
   */
  public Assembled assemble(Path work) {
    try {
      deleteTree(work);
      Files.createDirectories(work);
      Path extracted = work.resolve("extracted");
      String extractOptions = instructions("RUN java -Djarmode=tools").stream().map(EXTRACT::matcher)
          .filter(Matcher::matches).map(m -> m.group(1)).findFirst()
          .orElseThrow(() -> new IllegalStateException("no extract step in the build stage"));
      List<String> command = new ArrayList<>(List.of(java(), "-Djarmode=tools", "-jar",
          OperatorProcess.JAR.toAbsolutePath().toString(), "extract"));
      command.addAll(List.of(extractOptions.split(" ")));
      command.addAll(List.of("--destination", extracted.toString()));
      run(command, work, Map.of(), work.resolve("extract.log"));
      Path app = Files.createDirectories(work.resolve("app"));
      for (String layer : copiedLayers()) {
        DeployTesting.copyTree(extracted.resolve(layer), app);
      }
      int step = 0;
      for (String instruction : runtimeStage()) {
        if (instruction.startsWith("RUN ")) {
          String shell = instruction.substring(4);
          Matcher mount = BIND_MOUNT.matcher(shell);
          if (mount.matches()) {
            shell = mount.group(3).replace(mount.group(2), Path.of(mount.group(1)).toAbsolutePath().toString());
          }
          // The JVM on the PATH of the image is the JVM running the tests here.
          shell = shell.replaceAll("(^|\\s)java\\s", "$1'" + java() + "' ");
          run(List.of("sh", "-c", shell), app, Map.of("JAVA_TOOL_OPTIONS", javaToolOptions()),
              work.resolve("run-" + (++step) + ".log"));
        }
      }
      return new Assembled(app, entrypoint());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /** Runs a command with only PATH, a private HOME and {@code env}; fails with its output unless it exits 0. */
  static String run(List<String> command, Path directory, Map<String, String> env, Path log) {
    try {
      ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile());
      builder.environment().clear();
      builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
      builder.environment().put("HOME", Files.createDirectories(log.getParent().resolve("home")).toString());
      builder.environment().putAll(env);
      Process process = builder.start();
      process.getOutputStream().close();
      if (!process.waitFor(180, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(command + " did not finish within 180 s; see " + log);
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(command + " exited " + process.exitValue() + ":\n" + output);
      }
      return output;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (var paths = Files.walk(root)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
