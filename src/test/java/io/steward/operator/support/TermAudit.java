package io.steward.operator.support;

import io.steward.testing.cluster.AuditLog;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Reads a fencing trial from the API server's audit log: when a replica's Lease writes began, and
 * which of another replica's writes landed after that. Every mutating request counts (WebApps,
 * their status, Deployments, Services and Events), except the Lease's own.
 */
public final class TermAudit {
  private final List<AuditLog.Entry> entries;
  private final String leaseNamespace;
  private final String leaseName;

  public TermAudit(AuditLog log, String leaseNamespace, String leaseName, Instant since) {
    this.entries = log.entries(e -> e.fromUserAgentStartingWith("steward/") && e.mutating()
            && !e.received().isBefore(since)).stream()
        .sorted(Comparator.comparing(AuditLog.Entry::received)).toList();
    this.leaseNamespace = leaseNamespace;
    this.leaseName = leaseName;
  }

  private boolean isLeaseWrite(AuditLog.Entry e) {
    return "leases".equals(e.resource()) && leaseName.equals(e.name()) && leaseNamespace.equals(e.namespace());
  }

  private static boolean succeeded(AuditLog.Entry e) {
    return e.code() >= 200 && e.code() < 300;
  }

  /** The first successful Lease write by {@code userAgent} at or after {@code after}: the start of its term. */
  public Optional<Instant> termStart(String userAgent, Instant after) {
    return entries.stream().filter(e -> isLeaseWrite(e) && succeeded(e) && e.userAgent().equals(userAgent)
        && !e.received().isBefore(after)).map(AuditLog.Entry::received).findFirst();
  }

  /** Successful writes other than to the Lease by {@code userAgent} received at or after {@code after}. */
  public List<AuditLog.Entry> successfulWrites(String userAgent, Instant after) {
    return entries.stream().filter(e -> !isLeaseWrite(e) && succeeded(e) && e.userAgent().equals(userAgent)
        && !e.received().isBefore(after)).toList();
  }

  /** Refused writes other than to the Lease by {@code userAgent} at or after {@code after}, with this code. */
  public List<AuditLog.Entry> refusedWrites(String userAgent, Instant after, int code) {
    return entries.stream().filter(e -> !isLeaseWrite(e) && e.code() == code && e.userAgent().equals(userAgent)
        && !e.received().isBefore(after)).toList();
  }

  /** Time from {@code from} to the first successful write other than to the Lease by {@code userAgent}. */
  public Optional<Duration> firstWrite(String userAgent, Instant from) {
    return successfulWrites(userAgent, from).stream().findFirst().map(e -> Duration.between(from, e.received()));
  }

  /** The last successful Lease write by {@code userAgent} (its release, after a graceful stop). */
  public Optional<Instant> lastLeaseWrite(String userAgent) {
    return entries.stream().filter(e -> isLeaseWrite(e) && succeeded(e) && e.userAgent().equals(userAgent))
        .map(AuditLog.Entry::received).reduce((first, second) -> second);
  }
}
