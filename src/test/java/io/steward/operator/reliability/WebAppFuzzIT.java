package io.steward.operator.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ResourceQuota;
import io.kubernetes.client.openapi.models.V1ResourceQuotaSpec;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.steward.operator.support.Crds;
import io.steward.operator.support.InProcessOperator;
import io.steward.operator.support.WebAppFuzz;
import io.steward.operator.support.WebApps;
import io.steward.operator.webapp.api.WebApp;
import io.steward.testing.cluster.LocalCluster;
import io.steward.testing.cluster.LocalClusterTest;
import io.steward.testing.cluster.TestNamespace;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * String fuzz of the WebApp API: documents generated from the CRD's own patterns and bounds (see
 * {@link WebAppFuzz}), hostile quantities included, each sent to the API server with Steward
 * running. Every one must be refused at admission with a message naming a field, or be reported on
 * by Steward for its current generation within 30 s: Ready, Degraded/Stalled with a reason, or
 * still rolling out with a reason (pods the fake nodes or the namespace's pod quota cannot take).
 * An accepted WebApp without such a status is silent, which is what the hostile quantities were on
 * the old CRD and reconciler.
 *
 * <p>A short run in {@code mvn verify}; the full one with {@code -Preliability}. Figures go to
 * target/reliability/fuzz.json and fuzz.md.
 */
@LocalClusterTest(shape = LocalCluster.Shape.FULL)
class WebAppFuzzIT {
  private static final boolean FULL = "full".equals(System.getProperty("steward.reliability"));
  private static final int DOCUMENTS = FULL ? 1_000 : 150;
  private static final int BATCH = 150;
  private static final Duration REPORT_WITHIN = Duration.ofSeconds(30);
  private static final long SEED = 14;

  enum Outcome { REFUSED, READY, DEGRADED_OR_STALLED, ROLLING_OUT, SILENT }

  private static InProcessOperator operator;
  private static DynamicKubernetesApi webApps;
  private static String ns;

  @BeforeAll
  static void start(LocalCluster cluster, TestNamespace namespace) throws Exception {
    Crds.installWebAppCrd(cluster.adminClient());
    ns = namespace.name();
    // Keeps the pods of WebApps at the replica bound from flooding the fake nodes.
    new CoreV1Api(cluster.adminClient()).createNamespacedResourceQuota(ns, new V1ResourceQuota()
        .metadata(new V1ObjectMeta().name("fuzz-pods"))
        .spec(new V1ResourceQuotaSpec().hard(Map.of("pods", new Quantity("150"))))).execute();
    operator = InProcessOperator.start(cluster, ns, "fuzz-" + ns, Map.of());
    webApps = new DynamicKubernetesApi(WebApp.GROUP, WebApp.VERSION, WebApp.PLURAL, cluster.adminClient());
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void everyDocumentIsRefusedNamingItsFieldOrReportedOn() throws Exception {
    WebAppFuzz fuzz = new WebAppFuzz(Crds.load(), SEED);
    Map<Outcome, Integer> counts = new EnumMap<>(Outcome.class);
    List<String> refusedWithoutField = new ArrayList<>();
    List<String> silent = new ArrayList<>();
    List<String> rollingOut = new ArrayList<>();
    Map<String, Integer> reasons = new LinkedHashMap<>();
    Instant start = Instant.now();
    double passesBefore = passes();
    long cpuBefore = reconcileCpuNanos();

    for (int first = 0; first < DOCUMENTS; first += BATCH) {
      Map<String, Instant> accepted = new LinkedHashMap<>();
      Map<String, String> fields = new LinkedHashMap<>();
      for (int i = first; i < Math.min(first + BATCH, DOCUMENTS); i++) {
        String name = "fuzz-%04d".formatted(i);
        String field = fuzz.mutations().get(i % fuzz.mutations().size()).field();
        fields.put(name, field);
        String document = fuzz.document(i, name);
        JsonObject body = JsonParser.parseString(document).getAsJsonObject();
        body.getAsJsonObject("metadata").addProperty("namespace", ns);
        KubernetesApiResponse<DynamicKubernetesObject> response = webApps.create(new DynamicKubernetesObject(body));
        if (response.isSuccess()) {
          accepted.put(name, Instant.now());
          continue;
        }
        counts.merge(Outcome.REFUSED, 1, Integer::sum);
        String message = response.getStatus() == null ? "" : String.valueOf(response.getStatus().getMessage());
        if (response.getHttpStatusCode() >= 500 || !(message.contains("spec") || message.contains("metadata.name"))) {
          refusedWithoutField.add(field + " → HTTP " + response.getHttpStatusCode() + ": " + abbreviated(message));
        }
      }
      Map<String, Outcome> judged = judge(accepted, reasons);
      judged.forEach((name, outcome) -> {
        counts.merge(outcome, 1, Integer::sum);
        if (outcome == Outcome.SILENT) {
          silent.add(name + " (" + fields.get(name) + ")");
        } else if (outcome == Outcome.ROLLING_OUT) {
          rollingOut.add(name + " (" + fields.get(name) + ")");
        }
      });
      for (String name : accepted.keySet()) {
        webApps.delete(ns, name);
      }
    }

    Duration took = Duration.between(start, Instant.now());
    Cost cost = new Cost(passes() - passesBefore, reconcileCpuNanos() - cpuBefore);
    writeFigures(counts, reasons, silent, rollingOut, refusedWithoutField, fuzz.mutations().size(), took, cost);
    assertThat(silent).as("WebApps the API server accepted and Steward never reported on").isEmpty();
    assertThat(refusedWithoutField).as("refusals whose message names no field").isEmpty();
    assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(DOCUMENTS);
  }

  /** Polls the accepted WebApps until each is Ready or Degraded/Stalled, or its 30 s are up. */
  private static Map<String, Outcome> judge(Map<String, Instant> accepted, Map<String, Integer> reasons)
      throws InterruptedException {
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    while (outcomes.size() < accepted.size()) {
      for (Map.Entry<String, Instant> webApp : accepted.entrySet()) {
        if (outcomes.containsKey(webApp.getKey())) {
          continue;
        }
        KubernetesApiResponse<DynamicKubernetesObject> read = webApps.get(ns, webApp.getKey());
        JsonObject document = read.isSuccess() ? read.getObject().getRaw() : null;
        boolean late = Instant.now().isAfter(webApp.getValue().plus(REPORT_WITHIN));
        Outcome outcome = document == null ? null : outcome(document, late);
        if (outcome == null && late) {
          outcome = Outcome.SILENT;
        }
        if (outcome != null) {
          outcomes.put(webApp.getKey(), outcome);
          if (outcome == Outcome.DEGRADED_OR_STALLED) {
            reasons.merge(WebApps.condition(document, "Degraded") == null ? "?" : reasonOf(document), 1, Integer::sum);
          }
        }
      }
      Thread.sleep(250);
    }
    return outcomes;
  }

  /** The outcome the status shows, or null while it shows none yet and there is time left. */
  private static Outcome outcome(JsonObject document, boolean late) {
    JsonObject status = document.getAsJsonObject("status");
    long generation = document.getAsJsonObject("metadata").get("generation").getAsLong();
    if (status == null || !status.has("observedGeneration") || status.get("observedGeneration").getAsLong() != generation) {
      return null;
    }
    if (isTrue(document, "Ready")) {
      return Outcome.READY;
    }
    if ((isTrue(document, "Degraded") || isTrue(document, "Stalled")) && !reasonOf(document).isEmpty()) {
      return Outcome.DEGRADED_OR_STALLED;
    }
    JsonObject ready = WebApps.condition(document, "Ready");
    if (late && ready != null && ready.has("reason") && !ready.get("reason").getAsString().isEmpty()) {
      return Outcome.ROLLING_OUT;
    }
    return null;
  }

  private static String reasonOf(JsonObject document) {
    JsonObject c = isTrue(document, "Stalled") ? WebApps.condition(document, "Stalled") : WebApps.condition(document, "Degraded");
    return c == null || !c.has("reason") ? "" : c.get("reason").getAsString();
  }

  private static boolean isTrue(JsonObject document, String type) {
    JsonObject c = WebApps.condition(document, type);
    return c != null && "True".equals(c.get("status").getAsString());
  }

  /** Reconcile passes and the CPU time their worker threads used. */
  private record Cost(double passes, long cpuNanos) {}

  /** Passes Steward counted, whatever their result (controller_runtime_reconcile_total). */
  private static double passes() {
    return operator.bean(MeterRegistry.class).find("controller_runtime_reconcile").counters().stream()
        .mapToDouble(Counter::count).sum();
  }

  /** CPU time of the reconcile workers (threads named after the controller), as this JVM measures it. */
  private static long reconcileCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("webapp-"))
        .mapToLong(t -> Math.max(0, threads.getThreadCpuTime(t.getId()))).sum();
  }

  private static String abbreviated(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "…";
  }

  private static void writeFigures(Map<Outcome, Integer> counts, Map<String, Integer> reasons, List<String> silent,
      List<String> rollingOut, List<String> refusedWithoutField, int mutations, Duration took, Cost cost)
      throws IOException {
    int accepted = DOCUMENTS - counts.getOrDefault(Outcome.REFUSED, 0);
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("date", Instant.now().toString());
    root.put("mode", FULL ? "full" : "short");
    root.put("documents", DOCUMENTS);
    root.put("seed", SEED);
    root.put("distinctMutations", mutations);
    root.put("refusedAtAdmission", counts.getOrDefault(Outcome.REFUSED, 0));
    root.put("refusedWithoutNamingAField", refusedWithoutField.size());
    root.put("accepted", accepted);
    root.put("acceptedReady", counts.getOrDefault(Outcome.READY, 0));
    root.put("acceptedDegradedOrStalled", counts.getOrDefault(Outcome.DEGRADED_OR_STALLED, 0));
    root.put("acceptedStillRollingOutWithAReason", counts.getOrDefault(Outcome.ROLLING_OUT, 0));
    root.put("acceptedButSilent", silent.size());
    root.put("degradedReasons", reasons);
    root.put("silentExamples", silent.stream().limit(20).toList());
    root.put("rollingOutExamples", rollingOut.stream().limit(20).toList());
    root.put("refusedWithoutFieldExamples", refusedWithoutField.stream().limit(20).toList());
    root.put("seconds", took.toSeconds());
    root.put("reconcilePasses", (long) cost.passes());
    root.put("reconcilePassesPerAcceptedWebApp", accepted == 0 ? 0 : Math.round(cost.passes() / accepted * 100) / 100.0);
    root.put("reconcileThreadCpuMillisPerPass", cost.passes() == 0 ? 0
        : Math.round(cost.cpuNanos() / 1e6 / cost.passes() * 100) / 100.0);
    Path dir = Path.of("target", "reliability");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("fuzz.json"), new GsonBuilder().setPrettyPrinting().create().toJson(root));
    StringBuilder md = new StringBuilder("String fuzz of the WebApp API (" + root.get("mode") + "), " + root.get("date")
        + "\n\n| figure | value |\n| --- | --- |\n");
    root.forEach((k, v) -> {
      if (!k.equals("date") && !k.equals("mode")) {
        md.append("| ").append(k).append(" | ").append(v).append(" |\n");
      }
    });
    Files.writeString(dir.resolve("fuzz.md"), md.toString());
  }
}
