package io.steward.operator.runtime.election;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The namespace that holds the leader Lease: configured, else the pod's, else "default". */
public record LeaseNamespace(String name) {
  private static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  public static LeaseNamespace resolve(String configured) throws IOException {
    if (configured != null && !configured.isBlank()) {
      return new LeaseNamespace(configured);
    }
    String podNamespace = System.getenv("POD_NAMESPACE");
    if (podNamespace != null && !podNamespace.isBlank()) {
      return new LeaseNamespace(podNamespace);
    }
    if (Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)) {
      return new LeaseNamespace(Files.readString(SERVICE_ACCOUNT_NAMESPACE).strip());
    }
    return new LeaseNamespace("default");
  }
}
