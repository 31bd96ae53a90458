package io.steward.operator.bench;

import io.steward.operator.deploy.ContainerImage;
import io.steward.operator.deploy.StewardChart;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one benchmark run does, from system properties ({@code -Dsteward.bench.*}, which Maven passes
 * on to failsafe). Three modes set the defaults: {@code smoke} (N = 20, the check in every
 * {@code mvn verify}), {@code quick} (a few minutes) and {@code full} ({@code mvn verify -Pbench}).
 *
 * @param mode smoke, quick or full
 * @param sizes the N of the convergence runs (WebApps created at once)
 * @param backlogSizes the N of the backlog runs (WebApps created before the operator starts)
 * @param repeats runs per size, for sizes up to {@code repeatUpTo}; larger sizes run once
 * @param repeatUpTo the largest size that is repeated
 * @param ceilingSize WebApps per ceiling run
 * @param ceilingConcurrencies extra concurrencies for the ceiling sweep (the worker count always runs)
 * @param ceilingWithEvents also measure the ceiling with one Event per WebApp: what recording the creation would cost
 * @param pairedConcurrency concurrency of the ceiling run paired with each convergence run: the worker
 *     count (the definition), or a fixed one to compare worker counts on one scale
 * @param workers the operator's worker count (steward.workers), also the ceiling's concurrency
 * @param latencyChanges spec changes timed per latency run
 * @param latencyLoad WebApps converging during the loaded latency run
 * @param startupRepeats start-ups measured with the largest N existing
 * @param startupVariants JVM option sets (added to {@code jvmOptions}) whose start-up with 0 WebApps is
 *     compared side by side; the word {@code jar} runs the plain jar instead of the image's layout, the
 *     word {@code token} authenticates with a ServiceAccount's token, as a pod does, the word
 *     {@code sharded} starts it in sharded mode ({@code --steward.sharding.enabled=true}) and waits for its
 *     first buckets instead of the Lease
 * @param startupVariantRepeats start-ups per variant
 * @param resyncPeriod steward.resync-period of the steady-state operator; it must outlast its start-up
 * @param creators client threads creating WebApps
 * @param image run the operator as the image does (the Dockerfile carried out by {@link ContainerImage}:
 *     extracted jar, class-data-sharing archive), or else the plain jar
 * @param jvmOptions the operator JVM's options: by default the Helm chart's, as a pod runs them
 * @param compareJvmOptions option sets, each added to the chart's for one more create-at-once run at
 *     the largest N, to compare memory and throughput side by side (separated by ';' in the property);
 *     a word NAME=value in upper case sets the operator's environment instead (MALLOC_ARENA_MAX=2), and
 *     -XX:NativeMemoryTracking=summary writes where the memory goes (target/bench/nmt-*.txt); the word
 *     token authenticates with a ServiceAccount's token, as a pod does, instead of a client certificate
 * @param restSeconds how long each create-at-once run leaves the operator at rest after convergence
 *     before taking its RSS without a forced GC, as a pod holds it between bursts (0: not measured)
 * @param operatorProperties extra steward.* (or other Spring) properties for the operator, for tuning
 * @param contenders also run the contenders (issue 17): the client-go writer's ceiling and a
 *     controller-runtime operator ({@code -Dsteward.bench.contenders=false} skips them)
 * @param contenderSize the N at which the controller-runtime operator converges (created at once and
 *     backlog) beside Steward's runs of the same N; by default the largest N up to 1000
 * @param contenderConcurrencies the client-go writer's goroutine counts (its sweep)
 * @param scalingSizes the N of the scaling section (issue 16: single-leader mode, then sharded mode with each
 *     of {@code scalingReplicas}); empty skips it
 * @param scalingReplicas the sharded replica counts the scaling section compares with the single leader
 * @param scalingLabelledReplicas the same with the chart's MutatingAdmissionPolicy labelling WebApps with
 *     their bucket as they are created (sharding.labelAtAdmission); empty skips them
 * @param scalingRestSeconds how long the scaling section watches the replicas at rest after convergence
 * @param only run just this section ({@code scaling}, {@code latency}, {@code startup}), or everything when empty
 * @param output where results.json and results.md go
 * @param clusterDir the benchmark's own local cluster
 */
public record BenchSettings(String mode, List<Integer> sizes, List<Integer> backlogSizes, int repeats, int repeatUpTo,
    int ceilingSize, List<Integer> ceilingConcurrencies, boolean ceilingWithEvents, int pairedConcurrency,
    int workers, int latencyChanges, int latencyLoad, int startupRepeats, Map<String, List<String>> startupVariants,
    int startupVariantRepeats, String resyncPeriod, int creators, boolean image, List<String> jvmOptions,
    List<List<String>> compareJvmOptions, int restSeconds, Map<String, String> operatorProperties, boolean contenders,
    int contenderSize, List<Integer> contenderConcurrencies, List<Integer> scalingSizes, List<Integer> scalingReplicas,
    List<Integer> scalingLabelledReplicas, int scalingRestSeconds, String only, Path output, Path clusterDir) {

  /** The sections {@code -Dsteward.bench.only} can pick. */
  public static final String ONLY_SCALING = "scaling";
  public static final String ONLY_LATENCY = "latency";
  public static final String ONLY_STARTUP = "startup";

  /**
   * The JVM's own defaults where the chart tunes them (C2 compilation, heap free ratios), added to
   * the chart's options to show what the tuning buys.
   */
  public static final String JVM_DEFAULTS = "-XX:TieredStopAtLevel=4 -XX:MinHeapFreeRatio=40 -XX:MaxHeapFreeRatio=70";
  /** The image without the bean definitions Spring AOT prepared (with the archive of the image, made with them). */
  public static final String WITHOUT_AOT = "image without Spring AOT:-Dspring.aot.enabled=false";
  /** The image authenticating as a pod does, with a ServiceAccount token instead of a client certificate. */
  public static final String POD_TOKEN = "image, ServiceAccount token:token";

  public static BenchSettings fromSystemProperties() {
    String mode = System.getProperty("steward.bench.mode", "smoke").toLowerCase(Locale.ROOT);
    boolean full = mode.equals("full");
    boolean quick = mode.equals("quick");
    String only = only(System.getProperty("steward.bench.only", ""));
    if (!full && !quick && !mode.equals("smoke")) {
      throw new IllegalArgumentException("steward.bench.mode must be smoke, quick or full, not " + mode);
    }
    int workers = integer("steward.bench.workers", 8); // Steward's default (application.yaml)
    Map<String, String> properties = new LinkedHashMap<>();
    for (String pair : list("steward.bench.operator-properties", "")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("steward.bench.operator-properties: expected name=value, got " + pair);
      }
      properties.put(pair.substring(0, eq).replaceFirst("^--", ""), pair.substring(eq + 1));
    }
    properties.putIfAbsent("steward.workers", Integer.toString(workers));
    List<Integer> sizes = integers("steward.bench.sizes", full ? "100,1000,5000" : quick ? "100,1000" : "20");
    return new BenchSettings(mode,
        sizes,
        integers("steward.bench.backlog-sizes", full ? "1000" : quick ? "1000" : "20"),
        integer("steward.bench.repeats", full ? 3 : quick ? 2 : 1),
        integer("steward.bench.repeat-up-to", 1000),
        integer("steward.bench.ceiling-size", full || quick ? 500 : 20),
        integers("steward.bench.ceiling-concurrencies", full ? "1,2,4,8,16" : ""),
        Boolean.parseBoolean(System.getProperty("steward.bench.ceiling-with-events",
            Boolean.toString(!mode.equals("smoke")))),
        integer("steward.bench.paired-concurrency", workers),
        workers,
        integer("steward.bench.latency-changes", full || quick ? 100 : 10),
        integer("steward.bench.latency-load", full || quick ? 1000 : 20),
        integer("steward.bench.startup-repeats", full ? 3 : 1),
        variants(System.getProperty("steward.bench.startup-variants", full
            || only.equals(ONLY_STARTUP)
            ? "plain jar (no class-data sharing):jar;JVM defaults (C2):" + JVM_DEFAULTS
                + ";plain jar, JVM defaults:jar " + JVM_DEFAULTS + ";" + WITHOUT_AOT + ";" + POD_TOKEN
            : "")),
        integer("steward.bench.startup-variant-repeats", full ? 3 : 2),
        System.getProperty("steward.bench.resync-period", full ? "90s" : quick ? "20s" : "5s"),
        integer("steward.bench.creators", 8),
        Boolean.parseBoolean(System.getProperty("steward.bench.image", "true")),
        System.getProperty("steward.bench.jvm-options", "").isBlank() ? StewardChart.podJvmOptions()
            : List.of(System.getProperty("steward.bench.jvm-options").trim().split("\\s+")),
        compared(System.getProperty("steward.bench.compare-jvm-options", full ? JVM_DEFAULTS : "")),
        integer("steward.bench.rest-seconds", 0),
        properties,
        Boolean.parseBoolean(System.getProperty("steward.bench.contenders", "true")),
        integer("steward.bench.contender-size", Math.min(1000, sizes.stream().mapToInt(Integer::intValue).max().orElse(0))),
        integers("steward.bench.contender-concurrencies", "8,16,32,64"),
        integers("steward.bench.scaling-sizes", full ? "3000,10000" : quick ? "3000" : "20"),
        // The smoke run checks each mode's harness once, with as few replica starts as that takes.
        integers("steward.bench.scaling-replicas", full || quick ? "1,2,3" : "2"),
        integers("steward.bench.scaling-labelled-replicas", full || quick ? "1,2,3" : "1"),
        integer("steward.bench.scaling-rest", full || quick ? 30 : 5),
        only,
        Path.of(System.getProperty("steward.bench.output", "target/bench")),
        Path.of(System.getProperty("steward.bench.cluster-dir", "target/bench/cluster")));
  }

  /** Whether every section runs, not just the scaling one. */
  public boolean everySection() {
    return only.isEmpty();
  }

  public boolean scaling() {
    return !scalingSizes.isEmpty() && (everySection() || only.equals(ONLY_SCALING));
  }

  /** Whether the latency section runs alone. */
  public boolean latencyOnly() {
    return only.equals(ONLY_LATENCY);
  }

  /** Whether start-up with 0 WebApps runs alone: the image and each start-up variant, taking turns. */
  public boolean startupOnly() {
    return only.equals(ONLY_STARTUP);
  }

  private static String only(String value) {
    String section = value.trim().toLowerCase(Locale.ROOT);
    if (!section.isEmpty() && !section.equals(ONLY_SCALING) && !section.equals(ONLY_LATENCY)
        && !section.equals(ONLY_STARTUP)) {
      throw new IllegalArgumentException("steward.bench.only must be empty, " + ONLY_SCALING + ", " + ONLY_LATENCY
          + " or " + ONLY_STARTUP + ", not " + value);
    }
    return section;
  }

  public int repeatsFor(int n) {
    return n <= repeatUpTo ? repeats : 1;
  }

  public int largestSize() {
    return sizes.stream().mapToInt(Integer::intValue).max().orElse(0);
  }

  /** The JVM option sets of {@code -Dsteward.bench.compare-jvm-options}, each once: each names its runs. */
  static List<List<String>> compared(String spec) {
    List<List<String>> sets = Arrays.stream(spec.split(";")).map(String::trim).filter(o -> !o.isEmpty())
        .map(o -> List.of(o.split("\\s+"))).toList();
    if (new HashSet<>(sets).size() < sets.size()) {
      throw new IllegalArgumentException("steward.bench.compare-jvm-options lists an option set twice (" + spec
          + "): each names its runs; -Dsteward.bench.repeats gives more of them");
    }
    return sets;
  }

  /** "name:options;name:options", options separated by spaces (may be empty). */
  private static Map<String, List<String>> variants(String spec) {
    Map<String, List<String>> variants = new LinkedHashMap<>();
    for (String variant : spec.split(";")) {
      if (variant.isBlank()) {
        continue;
      }
      int colon = variant.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("steward.bench.startup-variants: expected name:options, got " + variant);
      }
      String options = variant.substring(colon + 1).trim();
      variants.put(variant.substring(0, colon).trim(), options.isEmpty() ? List.of() : List.of(options.split("\\s+")));
    }
    return variants;
  }

  private static int integer(String name, int fallback) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? fallback : Integer.parseInt(value.trim());
  }

  private static List<Integer> integers(String name, String fallback) {
    List<Integer> values = new ArrayList<>();
    for (String item : list(name, fallback)) {
      values.add(Integer.parseInt(item));
    }
    return values;
  }

  private static List<String> list(String name, String fallback) {
    String value = System.getProperty(name, fallback);
    return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
