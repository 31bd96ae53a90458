package io.steward.operator.support;

import io.steward.testing.cluster.AuditLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Judges leader election from the API server's audit log, not from the operators' own reports. A
 * replica's term starts with its first successful write to the Lease after another replica's; every
 * write it makes to WebApps, Deployments or Services (or their status) must fall inside one of its
 * terms. Anything else is a write by a non-leader.
 */
public final class LeadershipAudit {
  private static final Set<String> OWNED = Set.of("webapps", "deployments", "services");

  /** A term of leadership: who, and from when (until the next term starts). */
  public record Term(String userAgent, Instant start) {}

  private final List<AuditLog.Entry> entries;
  private final String leaseNamespace;
  private final String leaseName;

  public LeadershipAudit(AuditLog log, String leaseNamespace, String leaseName) {
    this.entries = log.entries(e -> e.fromUserAgentStartingWith("steward/")).stream()
        .sorted(Comparator.comparing(AuditLog.Entry::received)).toList();
    this.leaseNamespace = leaseNamespace;
    this.leaseName = leaseName;
  }

  public List<Term> terms() {
    List<Term> terms = new ArrayList<>();
    for (AuditLog.Entry e : entries) {
      boolean leaseWrite = e.mutating() && "leases".equals(e.resource()) && leaseName.equals(e.name())
          && leaseNamespace.equals(e.namespace()) && e.code() >= 200 && e.code() < 300;
      if (leaseWrite && (terms.isEmpty() || !terms.get(terms.size() - 1).userAgent().equals(e.userAgent()))) {
        terms.add(new Term(e.userAgent(), e.received()));
      }
    }
    return terms;
  }

  /** Writes to owned resources in {@code namespace} by a replica that did not hold the Lease then. */
  public List<AuditLog.Entry> writesByNonLeaders(String namespace) {
    List<Term> terms = terms();
    List<AuditLog.Entry> violations = new ArrayList<>();
    for (AuditLog.Entry e : entries) {
      if (!e.mutating() || !OWNED.contains(e.resource()) || !namespace.equals(e.namespace())) {
        continue;
      }
      Term holder = null;
      for (Term term : terms) {
        if (!term.start().isAfter(e.received())) {
          holder = term;
        }
      }
      if (holder == null || !holder.userAgent().equals(e.userAgent())) {
        violations.add(e);
      }
    }
    return violations;
  }

  /** Time from {@code from} to the first write to owned resources in {@code namespace} by {@code userAgent}. */
  public Duration firstWriteAfter(String userAgent, Instant from, String namespace) {
    return entries.stream()
        .filter(e -> e.mutating() && OWNED.contains(e.resource()) && namespace.equals(e.namespace())
            && e.userAgent().equals(userAgent) && !e.received().isBefore(from))
        .findFirst().map(e -> Duration.between(from, e.received())).orElse(null);
  }

  public List<AuditLog.Entry> writesBy(String userAgent, String namespace) {
    return entries.stream().filter(e -> e.mutating() && OWNED.contains(e.resource())
        && namespace.equals(e.namespace()) && e.userAgent().equals(userAgent)).toList();
  }
}
