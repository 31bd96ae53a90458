package io.steward.operator.support;

import io.steward.testing.cluster.AuditLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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

  /**
   * The run as a failover picture's data ({@link Charts#failover}): each replica's terms and its
   * writes to owned resources in {@code namespace}, in seconds from the first term, and
   * {@code markers} (kills, SIGTERMs) on the same scale. Replicas are named without "steward/".
   */
  public Charts.Timeline timeline(String namespace, List<Instant> markers) {
    List<Term> terms = terms();
    if (terms.isEmpty()) {
      return new Charts.Timeline(List.of(), List.of(), Map.of(), List.of());
    }
    Instant origin = terms.get(0).start();
    Instant last = entries.get(entries.size() - 1).received();
    List<Charts.Timeline.Term> spans = new ArrayList<>();
    for (int i = 0; i < terms.size(); i++) {
      Instant end = i + 1 < terms.size() ? terms.get(i + 1).start() : last;
      spans.add(new Charts.Timeline.Term(replica(terms.get(i).userAgent()), seconds(origin, terms.get(i).start()),
          seconds(origin, end)));
    }
    Map<String, List<Double>> writes = new LinkedHashMap<>();
    for (AuditLog.Entry e : entries) {
      if (e.mutating() && OWNED.contains(e.resource()) && namespace.equals(e.namespace()) && !e.received().isBefore(origin)) {
        writes.computeIfAbsent(replica(e.userAgent()), r -> new ArrayList<>()).add(seconds(origin, e.received()));
      }
    }
    Set<String> replicas = new TreeSet<>(writes.keySet());
    spans.forEach(span -> replicas.add(span.replica()));
    return new Charts.Timeline(List.copyOf(replicas), spans, writes,
        markers.stream().map(m -> seconds(origin, m)).toList());
  }

  private static String replica(String userAgent) {
    return userAgent.startsWith("steward/") ? userAgent.substring("steward/".length()) : userAgent;
  }

  private static double seconds(Instant origin, Instant at) {
    return Duration.between(origin, at).toMillis() / 1000.0;
  }

  public List<AuditLog.Entry> writesBy(String userAgent, String namespace) {
    return entries.stream().filter(e -> e.mutating() && OWNED.contains(e.resource())
        && namespace.equals(e.namespace()) && e.userAgent().equals(userAgent)).toList();
  }
}
