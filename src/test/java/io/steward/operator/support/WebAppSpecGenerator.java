package io.steward.operator.support;

import io.kubernetes.client.custom.Quantity;
import io.steward.operator.webapp.api.WebAppSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Random WebApp specs that the CRD accepts, spread over the whole schema: every field present or
 * not, bounds reached, odd but legal strings. Seeded, so a failure names a reproducible case.
 */
public final class WebAppSpecGenerator {
  private static final String[] IMAGES = {"nginx", "nginx:1.27", "registry.example.com:5000/team/app:v1.2.3",
      "ghcr.io/org/app@sha256:" + "a".repeat(64), "localhost/x", "a", "quay.io/ns/img:latest-ü"};
  private static final String NAME_START = "-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  private static final String NAME_REST = NAME_START + "0123456789";
  private static final String[] VALUE_PIECES = {"", "plain", "with spaces", "ünïcödé", "日本語", "emoji 🚀", "quote\"s",
      "back\\slash", "$(NOT_EXPANDED)", "tab\tand\nnewline", "=;:,"};
  private static final String[] CPU = {"1m", "10m", "100m", "250m", "1", "2", "1.5", "64"};
  private static final String[] MEMORY = {"1Ki", "64Mi", "128Mi", "1Gi", "2G", "100M", "1e9"};
  private static final String[] STORAGE = {"1Mi", "1Gi", "10G"};
  /** The CRD's bounds on env: entries, and characters of all of them together. */
  private static final EnvLimits ENV = EnvLimits.fromCrd();
  /** Characters kept back for each entry still to come: a short name, or a name and a short reference. */
  private static final int PER_ENTRY = 4;

  private final Random random;

  public WebAppSpecGenerator(long seed) {
    this.random = new Random(seed);
  }

  public String name() {
    return name(1 + random.nextInt(40));
  }

  /** A DNS-1035 label of {@code length} characters, as a WebApp's name must be: a letter first, no '-' last. */
  public String name(int length) {
    StringBuilder name = new StringBuilder().append((char) ('a' + random.nextInt(26)));
    for (int i = 1; i < length; i++) {
      String alphabet = i == length - 1 ? "abcdefghijklmnopqrstuvwxyz0123456789" : "abcdefghijklmnopqrstuvwxyz0123456789-";
      name.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return name.toString();
  }

  public WebAppSpec spec() {
    Integer port = random.nextInt(3) == 0 ? null : pick(new int[] {1, 80, 443, 8080, 65535, 1 + random.nextInt(65535)});
    WebAppSpec.ServiceType type = port == null ? (random.nextBoolean() ? null : WebAppSpec.ServiceType.ClusterIP)
        : WebAppSpec.ServiceType.values()[random.nextInt(3)];
    Integer replicas = random.nextInt(4) == 0 ? null : pick(new int[] {0, 1, 2, 3, 10, 1000, random.nextInt(1001)});
    String readinessPath = port != null && random.nextBoolean()
        ? pick(new String[] {"/", "/healthz", "/ready?full=1", "/a/b/c", "/ü", "/" + "p".repeat(1000)}) : null;
    return new WebAppSpec(pick(IMAGES), replicas, port, type, env(), resources(), readinessPath,
        random.nextInt(4) == 0 ? random.nextBoolean() : null,
        random.nextInt(4) == 0 ? random.nextBoolean() : null,
        random.nextInt(4) == 0 ? (long) pick(new int[] {1, 101, 65532, Integer.MAX_VALUE}) : null,
        random.nextInt(4) == 0 ? random.nextBoolean() : null);
  }

  private List<WebAppSpec.EnvVar> env() {
    if (random.nextInt(3) == 0) {
      return null;
    }
    int count = random.nextInt(10) == 0 ? ENV.maxItems() : random.nextInt(8);
    Set<String> names = new LinkedHashSet<>();
    List<WebAppSpec.EnvVar> env = new ArrayList<>();
    int left = ENV.maxCharacters();
    for (int i = 0; i < count; i++) {
      int room = left - (count - i - 1) * PER_ENTRY;
      String n = name(names, Math.min(room - PER_ENTRY, 1 + random.nextInt(random.nextInt(10) == 0 ? ENV.maxName() : 20)));
      room -= n.length();
      left -= n.length();
      int kind = random.nextInt(8);
      String reference = reference();
      String key = keyName();
      if (kind < 2 && reference.length() + key.length() > room) {
        reference = "db";
        key = "k";
      }
      String value = random.nextInt(20) == 0 ? "v".repeat(Math.max(0, room - ENV.maxCharacters() / 8)) : pick(VALUE_PIECES);
      if (value.length() > room) {
        value = "";
      }
      left -= kind < 2 ? reference.length() + key.length() : kind > 2 ? value.length() : 0;
      env.add(switch (kind) {
        case 0 -> WebAppSpec.EnvVar.fromSecret(n, reference, key, random.nextBoolean() ? null : random.nextBoolean());
        case 1 -> WebAppSpec.EnvVar.fromConfigMap(n, reference, key, random.nextBoolean() ? null : random.nextBoolean());
        case 2 -> new WebAppSpec.EnvVar(n, "");
        default -> new WebAppSpec.EnvVar(n, value);
      });
    }
    return env;
  }

  /** A variable name of {@code length} characters (at least one) not yet in {@code names}, which it joins. */
  private String name(Set<String> names, int length) {
    String n;
    int attempts = 0;
    do {
      // Short names run out: lengthen after a few collisions.
      int wanted = Math.max(1, length) + attempts++ / 10;
      StringBuilder b = new StringBuilder().append(NAME_START.charAt(random.nextInt(NAME_START.length())));
      for (int i = 1; i < wanted; i++) {
        b.append(NAME_REST.charAt(random.nextInt(NAME_REST.length())));
      }
      n = b.toString();
    } while (!names.add(n));
    return n;
  }

  /** A Secret or ConfigMap name: a DNS-1123 subdomain, up to its longest. */
  private String reference() {
    return pick(new String[] {"db", "app-config", "a.b-c.d", "x".repeat(253), "0"});
  }

  private String keyName() {
    return pick(new String[] {"password", "API_KEY", ".dotfile", "a-b_c.d", "k".repeat(253)});
  }

  private WebAppSpec.ResourceSettings resources() {
    if (random.nextInt(3) == 0) {
      return null;
    }
    Map<String, Quantity> requests = new LinkedHashMap<>();
    Map<String, Quantity> limits = new LinkedHashMap<>();
    String[][] kinds = {{"cpu"}, {"memory"}, {"ephemeral-storage"}};
    for (String[] kind : kinds) {
      String[] values = kind[0].equals("cpu") ? CPU : kind[0].equals("memory") ? MEMORY : STORAGE;
      Quantity request = new Quantity(pick(values));
      boolean hasRequest = random.nextBoolean();
      if (hasRequest) {
        requests.put(kind[0], request);
      }
      if (random.nextBoolean()) {
        Quantity limit = hasRequest
            ? new Quantity(request.getNumber().multiply(java.math.BigDecimal.valueOf(1 + random.nextInt(4))), request.getFormat())
            : new Quantity(pick(values));
        limits.put(kind[0], limit);
      }
    }
    return new WebAppSpec.ResourceSettings(requests.isEmpty() ? null : requests, limits.isEmpty() ? null : limits);
  }

  private int pick(int[] values) {
    return values[random.nextInt(values.length)];
  }

  private <T> T pick(T[] values) {
    return values[random.nextInt(values.length)];
  }
}
