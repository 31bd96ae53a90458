package io.steward.operator.bench;

import io.steward.testing.cluster.AuditLog;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one client sent in a window, from the API server's audit log: requests by verb and resource
 * (with subresource), split into writes to what a WebApp owns (Deployments, Services, the WebApp's
 * status: ideally 3 per WebApp), Events, Lease renewals, direct reads (GET, which bypass the
 * informer caches: ideally 0) and lists (informers' initial lists and re-lists).
 */
record RequestCounts(int ownedWrites, int ownedWritesFailed, int conflicts, int events, int leases, int gets,
    int lists, int total, Map<String, Integer> byVerbAndResource) {

  private static final Set<String> OWNED = Set.of("deployments", "services", "webapps");

  static RequestCounts of(List<AuditLog.Entry> entries) {
    int owned = 0;
    int ownedFailed = 0;
    int conflicts = 0;
    int events = 0;
    int leases = 0;
    int gets = 0;
    int lists = 0;
    Map<String, Integer> by = new TreeMap<>();
    for (AuditLog.Entry e : entries) {
      String resource = e.resource() + (e.subresource().isEmpty() ? "" : "/" + e.subresource());
      String code = e.code() >= 200 && e.code() < 300 ? "" : " " + e.code();
      by.merge(e.verb() + " " + resource + code, 1, Integer::sum);
      if (e.mutating() && OWNED.contains(e.resource())) {
        owned++;
        if (e.code() < 200 || e.code() >= 300) {
          ownedFailed++;
        }
        if (e.code() == 409) {
          conflicts++;
        }
      } else if (e.mutating() && e.resource().equals("events")) {
        events++;
      } else if (e.mutating() && e.resource().equals("leases")) {
        leases++;
      }
      if (e.verb().equals("get") && !e.resource().equals("leases")) {
        gets++;
      }
      if (e.verb().equals("list")) {
        lists++;
      }
    }
    return new RequestCounts(owned, ownedFailed, conflicts, events, leases, gets, lists, entries.size(), by);
  }

  double ownedWritesPer(int webApps) {
    return webApps == 0 ? Double.NaN : ownedWrites / (double) webApps;
  }

  double getsPer(int webApps) {
    return webApps == 0 ? Double.NaN : gets / (double) webApps;
  }
}
