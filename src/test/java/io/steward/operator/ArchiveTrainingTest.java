package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The class list the image's training run loads (pure logic against this class path). */
class ArchiveTrainingTest {
  private static final List<String> JDK_PACKAGES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");

  @Test
  void everyListedClassOutsideTheJdkIsOnTheClassPath() throws IOException {
    List<String> names = listed();
    assertThat(names).as("the list").hasSizeGreaterThan(1000);
    // A class a dependency no longer has means the list is stale: regenerate it (README, "The image").
    assertThat(names.stream().filter(n -> JDK_PACKAGES.stream().noneMatch(n::startsWith)).filter(n -> !loadable(n)))
        .as("listed classes missing from the class path").isEmpty();
  }

  @Test
  void loadsTheListedClasses() {
    ArchiveTraining.Loaded counts = ArchiveTraining.loadListed(getClass().getClassLoader());
    assertThat(counts.loaded()).as("loaded").isGreaterThan(1000);
    assertThat(counts.missing()).as("not on this class path").isLessThan(counts.loaded() / 10);
  }

  private static List<String> listed() throws IOException {
    try (InputStream in = ArchiveTraining.class.getClassLoader().getResourceAsStream(ArchiveTraining.CLASS_LIST)) {
      assertThat(in).as(ArchiveTraining.CLASS_LIST).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
    }
  }

  private static boolean loadable(String name) {
    try {
      Class.forName(name, false, ArchiveTraining.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
