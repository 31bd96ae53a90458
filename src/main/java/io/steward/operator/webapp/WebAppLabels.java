package io.steward.operator.webapp;

import io.steward.operator.runtime.sharding.BucketHash;
import io.steward.operator.webapp.api.WebApp;
import java.util.LinkedHashMap;
import java.util.Map;

/** The app.kubernetes.io labels Steward puts on what it owns, and the selector of a WebApp's pods. */
public final class WebAppLabels {
  private WebAppLabels() {}

  public static final String NAME = "app.kubernetes.io/name";
  public static final String INSTANCE = "app.kubernetes.io/instance";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String STEWARD = "steward";
  /** Informers for owned objects watch only this, which keeps their caches small. */
  public static final String OWNED_SELECTOR = MANAGED_BY + "=" + STEWARD;

  /** Immutable once a Deployment exists (its selector cannot change), so it names only the instance. */
  public static Map<String, String> selector(WebApp webApp) {
    Map<String, String> selector = new LinkedHashMap<>();
    selector.put(NAME, "webapp");
    selector.put(INSTANCE, webApp.getMetadata().getName());
    return selector;
  }

  public static Map<String, String> all(WebApp webApp) {
    Map<String, String> labels = selector(webApp);
    labels.put(MANAGED_BY, STEWARD);
    return labels;
  }

  /**
   * The labels of a Deployment or Service Steward owns: {@link #all}, plus the WebApp's bucket in
   * sharded mode, so the object goes with its WebApp to whoever owns the bucket and the server-side
   * fence knows whose it is. Not on the pod template: a label change there would roll the pods.
   */
  public static Map<String, String> ofOwned(WebApp webApp) {
    Map<String, String> labels = all(webApp);
    Map<String, String> own = webApp.getMetadata().getLabels();
    if (own != null && own.containsKey(BucketHash.LABEL)) {
      labels.put(BucketHash.LABEL, own.get(BucketHash.LABEL));
    }
    return labels;
  }

  public static String selectorString(WebApp webApp) {
    return String.join(",", selector(webApp).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
  }
}
