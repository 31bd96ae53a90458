package io.steward.testing.cluster;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against the JVM's shared local control plane, in a namespace of its own.
 * Test methods and lifecycle methods may take {@link LocalCluster} and {@link TestNamespace}
 * parameters.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(LocalClusterExtension.class)
public @interface LocalClusterTest {
  /** The least the class needs; the shared cluster grows to FULL when any class asks for it. */
  LocalCluster.Shape shape() default LocalCluster.Shape.API;
}
