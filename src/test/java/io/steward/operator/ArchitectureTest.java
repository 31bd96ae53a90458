package io.steward.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The layout: a generic controller runtime in packages by concern, each allowed to use only the
 * packages below it; the WebApp domain built on the runtime; the composition root on top of both.
 */
@AnalyzeClasses(packages = "io.steward.operator", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  private static final String RUNTIME = "io.steward.operator.runtime";

  /** Each runtime package and the runtime packages it may use; nothing else of the runtime. */
  static final Map<String, Set<String>> ALLOWED = Map.of(
      "support", Set.of(),
      "client", Set.of("support"),
      "cache", Set.of("support"),
      "election", Set.of("support", "client"),
      "controller", Set.of("support", "client", "cache", "election"),
      "sharding", Set.of("support", "cache", "election"),
      "lifecycle", Set.of("support", "client", "cache", "election", "controller", "sharding"),
      "web", Set.of("support", "cache", "election", "controller", "sharding", "lifecycle"));

  @ArchTest
  static void eachRuntimePackageUsesOnlyThePackagesBelowIt(JavaClasses classes) {
    ALLOWED.forEach((pkg, allowed) -> {
      Set<String> forbidden = new TreeSet<>(ALLOWED.keySet());
      forbidden.removeAll(allowed);
      forbidden.remove(pkg);
      if (forbidden.isEmpty()) {
        return;
      }
      noClasses().that().resideInAPackage(RUNTIME + "." + pkg)
          .should().dependOnClassesThat().resideInAnyPackage(forbidden.stream().map(p -> RUNTIME + "." + p)
              .toArray(String[]::new))
          .because(pkg + " may use only " + (allowed.isEmpty() ? "nothing else of the runtime" : allowed))
          .check(classes);
    });
  }

  @ArchTest
  static final ArchRule everyRuntimeClassIsInAKnownPackage = classes().that().resideInAPackage(RUNTIME + "..")
      .should().resideInAnyPackage(ALLOWED.keySet().stream().map(p -> RUNTIME + "." + p).toArray(String[]::new))
      .because("a new concern gets its own package, listed in ALLOWED with what it may use");

  @ArchTest
  static final ArchRule theRuntimeKnowsNothingOfWebApps = noClasses().that().resideInAPackage(RUNTIME + "..")
      .should().dependOnClassesThat().resideInAPackage("..operator.webapp..");

  @ArchTest
  static final ArchRule theRuntimeKnowsNothingOfTheComposition = noClasses().that().resideInAPackage(RUNTIME + "..")
      .should().dependOnClassesThat().resideInAPackage("io.steward.operator");

  @ArchTest
  static final ArchRule theDomainKnowsNothingOfTheComposition = noClasses()
      .that().resideInAPackage("..operator.webapp..")
      .should().dependOnClassesThat().resideInAPackage("io.steward.operator");

  @ArchTest
  static final ArchRule noPackageCycles = slices().matching("io.steward.operator.(**)").should().beFreeOfCycles();
}
