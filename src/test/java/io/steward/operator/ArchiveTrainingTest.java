package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The class list the image's training run loads (pure logic against this class path). */
class ArchiveTrainingTest {
  private static final List<String> JDK_PACKAGES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");
  private static final ClassLoader LOADER = ArchiveTraining.class.getClassLoader();

  @Test
  void everyListedClassOutsideTheJdkIsOnTheClassPath() {
    List<String> names = ArchiveTraining.listed(LOADER);
    assertThat(names).as("the list").hasSizeGreaterThan(1000);
    // A class a dependency no longer has means the list is stale: regenerate it (README, "The image").
    assertThat(names.stream().filter(n -> JDK_PACKAGES.stream().noneMatch(n::startsWith))
        .filter(n -> !ArchiveTraining.load(n, LOADER)))
        .as("listed classes missing from the class path").isEmpty();
  }

  @Test
  void loadsTheListedClasses() {
    List<String> names = ArchiveTraining.listed(LOADER);
    long loaded = names.stream().filter(n -> ArchiveTraining.load(n, LOADER)).count();
    assertThat(loaded).as("loaded").isGreaterThan(1000);
    assertThat(names.size() - loaded).as("not on this class path").isLessThan(loaded / 10);
  }
}
