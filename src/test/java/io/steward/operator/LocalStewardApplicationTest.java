package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code mvn spring-boot:test-run} (the README's first command) runs the test classes' main class
 * and refuses to start when it finds more than one ("Unable to find a single main class"), nested
 * classes included. Its choice cannot be configured apart from {@code spring-boot:run}'s, so
 * LocalStewardApplication must stay the only one.
 */
class LocalStewardApplicationTest {
  @Test
  void isTheOnlyMainClassInTheTestClasses() throws Exception {
    Path testClasses = Path.of(LocalStewardApplication.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI());
    List<String> mains;
    try (Stream<Path> files = Files.walk(testClasses)) {
      mains = files.filter(f -> f.toString().endsWith(".class"))
          .map(f -> testClasses.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", ""))
          .filter(LocalStewardApplicationTest::hasMain).sorted().toList();
    }
    assertThat(mains).as("test classes with public static void main(String[])")
        .containsExactly(LocalStewardApplication.class.getName());
  }

  private static boolean hasMain(String className) {
    try {
      Method main = Class.forName(className, false, LocalStewardApplicationTest.class.getClassLoader())
          .getDeclaredMethod("main", String[].class);
      return Modifier.isPublic(main.getModifiers()) && Modifier.isStatic(main.getModifiers());
    } catch (NoSuchMethodException e) {
      return false;
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }
}
