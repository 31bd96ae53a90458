package io.steward.operator.runtime.client;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/**
 * Who this replica is: its name in the leader Lease and in its User-Agent, so the API server's
 * audit log tells replicas apart. From steward.leader-election.identity, else the pod's name
 * (POD_NAME, from the downward API), else the host name plus a random suffix.
 */
public record OperatorIdentity(String name) {

  public static OperatorIdentity resolve(String configured) {
    if (configured != null && !configured.isBlank()) {
      return new OperatorIdentity(configured);
    }
    String podName = System.getenv("POD_NAME");
    if (podName != null && !podName.isBlank()) {
      return new OperatorIdentity(podName);
    }
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "steward";
    }
    return new OperatorIdentity(host + "-" + UUID.randomUUID().toString().substring(0, 6));
  }

  public String userAgent() {
    return "steward/" + name;
  }
}
