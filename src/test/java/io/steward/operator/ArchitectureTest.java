package io.steward.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The runtime is generic: it knows client-java and Spring, never the WebApp domain, so the domain
 * builds on it and not the other way round. And no package depends, however indirectly, on itself.
 */
@AnalyzeClasses(packages = "io.steward.operator", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule theRuntimeKnowsNothingOfWebApps = noClasses().that().resideInAPackage("..operator.runtime..")
      .should().dependOnClassesThat().resideInAPackage("..operator.webapp..");

  @ArchTest
  static final ArchRule theRuntimeKnowsNothingOfTheComposition = noClasses()
      .that().resideInAPackage("..operator.runtime..")
      .should().dependOnClassesThat().resideInAPackage("io.steward.operator");

  @ArchTest
  static final ArchRule noPackageCycles = slices().matching("io.steward.operator.(**)").should().beFreeOfCycles();
}
