package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The POM's git-properties step, which gives /actuator/info and steward_build_info their commit:
 * it writes the commit of a clone, and without .git (the image's build from the sources alone) it
 * writes nothing and the build goes on.
 */
class GitPropertiesScriptTest {
  @TempDir
  Path dir;

  /** The bash arguments of the exec execution with id git-properties, as the POM has them. */
  private static List<String> scriptArguments() throws Exception {
    var pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
    NodeList executions = pom.getElementsByTagName("execution");
    for (int i = 0; i < executions.getLength(); i++) {
      Element execution = (Element) executions.item(i);
      NodeList ids = execution.getElementsByTagName("id");
      if (ids.getLength() > 0 && ids.item(0).getTextContent().equals("git-properties")) {
        NodeList arguments = execution.getElementsByTagName("argument");
        List<String> found = new ArrayList<>();
        for (int a = 0; a < 3; a++) {
          found.add(arguments.item(a).getTextContent());
        }
        return found;
      }
    }
    throw new AssertionError("no git-properties execution in pom.xml");
  }

  private static int run(Path directory, List<String> command) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
    // No repository above the temporary directory may stand in for a missing .git.
    builder.environment().put("GIT_CEILING_DIRECTORIES", directory.getParent().toString());
    Process process = builder.start();
    process.getInputStream().readAllBytes();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return process.exitValue();
  }

  private int writeProperties(Path out, Path sources) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash"));
    command.addAll(scriptArguments());
    command.add(out.toString());
    command.add(sources.toString());
    return run(dir, command);
  }

  @Test
  void aCloneGetsItsCommit() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("clone"));
    assertThat(run(repo, List.of("git", "init", "-q"))).isZero();
    assertThat(run(repo, List.of("git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
        "--allow-empty", "-m", "first"))).isZero();
    Path out = dir.resolve("classes");
    assertThat(writeProperties(out, repo)).isZero();

    Properties git = new Properties();
    try (var in = Files.newInputStream(out.resolve("git.properties"))) {
      git.load(in);
    }
    Process head = new ProcessBuilder("git", "rev-parse", "HEAD").directory(repo.toFile()).start();
    String commit = new String(head.getInputStream().readAllBytes()).trim();
    assertThat(git.getProperty("git.commit.id")).hasSize(40).isEqualTo(commit);
    assertThat(commit).startsWith(git.getProperty("git.commit.id.abbrev"));
    assertThat(git.getProperty("git.commit.time")).isNotBlank();
  }

  @Test
  void withoutGitTheBuildGoesOnWithoutTheFile() throws Exception {
    Path sources = Files.createDirectories(dir.resolve("sources-only"));
    Path out = Files.createDirectories(dir.resolve("classes"));
    Files.writeString(out.resolve("git.properties"), "git.commit.id=stale\n");
    assertThat(writeProperties(out, sources)).isZero();
    assertThat(out.resolve("git.properties")).doesNotExist();
  }
}
