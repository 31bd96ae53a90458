package io.steward.testing.cluster;

/** The namespace a test class runs in, created before its first test and deleted after its last. */
public record TestNamespace(String name) {
  @Override
  public String toString() {
    return name;
  }
}
