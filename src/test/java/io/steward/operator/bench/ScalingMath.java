package io.steward.operator.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The pure part of the scaling section (issue 16): which configurations run, paces, shares of a core, balance. */
final class ScalingMath {
  static final String LEADER = "leader";
  static final String SHARDED = "sharded";
  /** Sharded mode with the chart's MutatingAdmissionPolicy labelling each WebApp with its bucket as it is created. */
  static final String LABELLED = "sharded-labelled";

  private ScalingMath() {}

  /** A mode and its replica count. */
  record Configuration(String mode, int replicas) {
    boolean sharded() {
      return !mode.equals(LEADER);
    }

    boolean labelledAtAdmission() {
      return mode.equals(LABELLED);
    }

    /** For namespaces and identities: "leader-r1", "sharded-r3", "sharded-labelled-r2". */
    String tag() {
      return mode + "-r" + replicas;
    }

    String label() {
      return (labelledAtAdmission() ? "sharded, labelled at admission, " : sharded() ? "sharded, " : "single leader, ")
          + replicas + (replicas == 1 ? " replica" : " replicas");
    }
  }

  /**
   * The baseline (single-leader mode, one replica) first, then sharded mode with each replica count in
   * order, then sharded mode with WebApps labelled at admission with each of its replica counts.
   */
  static List<Configuration> configurations(List<Integer> shardedReplicas, List<Integer> labelledReplicas) {
    List<Configuration> configurations = new ArrayList<>(List.of(new Configuration(LEADER, 1)));
    shardedReplicas.forEach(r -> configurations.add(new Configuration(SHARDED, r)));
    labelledReplicas.forEach(r -> configurations.add(new Configuration(LABELLED, r)));
    return configurations;
  }

  /** {@code count} per second over {@code seconds}; NaN when no time passed. */
  static double perSecond(double count, double seconds) {
    return seconds > 0 ? count / seconds : Double.NaN;
  }

  /** CPU used between two readings of a process's CPU seconds, as a percentage of one core over {@code seconds}. */
  static double percentOfOneCore(double cpuSecondsBefore, double cpuSecondsAfter, double seconds) {
    return seconds > 0 ? 100 * (cpuSecondsAfter - cpuSecondsBefore) / seconds : Double.NaN;
  }

  /**
   * What processes other than the measured ones used of the machine between two readings, as a
   * percentage of one core: the machine's busy CPU seconds less the measured processes' own.
   */
  static double othersPercentOfOneCore(double machineBefore, double machineAfter, double measuredBefore,
      double measuredAfter, double seconds) {
    return percentOfOneCore(machineBefore - measuredBefore, machineAfter - measuredAfter, seconds);
  }

  /** How many of {@code times} lie in [from, to). */
  static int within(Collection<Instant> times, Instant from, Instant to) {
    return (int) times.stream().filter(t -> !t.isBefore(from) && t.isBefore(to)).count();
  }

  /** Buckets held per live replica (a live replica holding none counts 0), from bucket → holder. */
  static Map<String, Integer> bucketsPerReplica(Map<Integer, String> holders, Set<String> live) {
    Map<String, Integer> held = new TreeMap<>();
    live.forEach(identity -> held.put(identity, 0));
    holders.values().stream().filter(live::contains).forEach(holder -> held.merge(holder, 1, Integer::sum));
    return held;
  }

  /**
   * Whether each of {@code buckets} buckets is held by a live replica and the live replicas' loads
   * differ by at most one (Steward's bounded rendezvous assignment).
   */
  static boolean balanced(Map<Integer, String> holders, Set<String> live, int buckets) {
    for (int bucket = 0; bucket < buckets; bucket++) {
      if (!live.contains(holders.getOrDefault(bucket, ""))) {
        return false;
      }
    }
    Collection<Integer> loads = bucketsPerReplica(holders, live).values();
    return loads.stream().mapToInt(Integer::intValue).max().orElse(0)
        - loads.stream().mapToInt(Integer::intValue).min().orElse(0) <= 1;
  }
}
