package io.steward.operator;

import io.steward.operator.runtime.client.TlsCipherOrder;
import io.steward.operator.runtime.election.LeaderElection;
import io.steward.operator.runtime.election.LeaseTimings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Steward's settings, under {@code steward.*}. Checked at start-up: a bad value stops the operator
 * with a message that names the property. The class checks itself (Spring Boot binds and then asks a
 * {@code @ConfigurationProperties} object that is a {@link Validator}): a handful of checks do not need
 * a Bean Validation provider and its start-up.
 */
@ConfigurationProperties("steward")
public class StewardProperties implements Validator {
  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");

  /** Namespaces whose WebApps Steward manages; empty means all namespaces. */
  private List<String> namespaces = new ArrayList<>();

  /** Reconciles that may run at once (controller-runtime's MaxConcurrentReconciles). */
  private int workers = 8;

  /** How often every WebApp is reconciled even without a change: a safety net, not a poll. */
  private Duration resyncPeriod = Duration.ofMinutes(10);

  /** Kubeconfig to use instead of the default chain (KUBECONFIG, ~/.kube/config, in-cluster). */
  private Path kubeconfig;

  /**
   * How often credentials a kubeconfig takes from a token file or an exec plugin are read again (as
   * client-java reads a pod's own token every minute), so that a rotated or expiring token does not
   * lock the operator out.
   */
  private Duration credentialRefreshPeriod = Duration.ofMinutes(1);

  /**
   * Which cipher TLS connections to the API server offer first: {@code auto} offers ChaCha20-Poly1305
   * first when this JVM runs AES-GCM without the CPU's AES instructions (C1-only compilation, as the
   * image runs), {@code chacha20-first} always, {@code jdk} never. Only the order changes.
   */
  private TlsCipherOrder tlsCipherOrder = TlsCipherOrder.AUTO;

  /**
   * Whether informers list with a streaming watch ({@code sendInitialEvents}) where the API server
   * offers it (Kubernetes 1.32, and 1.34 or newer, by default); false lists page by page, as Steward
   * does by itself where the API server refuses the streaming watch.
   */
  private boolean streamingLists = true;

  /** How long shutdown waits for running reconciles to finish. */
  private Duration shutdownTimeout = Duration.ofSeconds(20);

  /** Leader election on a Lease, with client-go's and controller-runtime's timings. */
  private final LeaderElection leaderElection = new LeaderElection();

  /** How writes are fenced to the leader's term. */
  private final Fencing fencing = new Fencing();

  private final Sharding sharding = new Sharding();

  @Override
  public boolean supports(Class<?> type) {
    return type == StewardProperties.class;
  }

  /** Each problem as a field error naming the property, so that Spring Boot's report names it too. */
  @Override
  public void validate(Object target, Errors errors) {
    for (int i = 0; i < namespaces.size(); i++) {
      requireDnsLabel(errors, "namespaces[" + i + "]", namespaces.get(i), "a namespace name");
    }
    if (workers < 1 || workers > 256) {
      errors.rejectValue("workers", "range", "steward.workers must be between 1 and 256");
    }
    if (resyncPeriod == null || resyncPeriod.compareTo(Duration.ofSeconds(1)) < 0) {
      errors.rejectValue("resyncPeriod", "range",
          "steward.resync-period must be at least 1s (minutes are usual: it is a safety net, not a polling interval)");
    }
    if (credentialRefreshPeriod == null || credentialRefreshPeriod.compareTo(Duration.ofSeconds(1)) < 0) {
      errors.rejectValue("credentialRefreshPeriod", "range", "steward.credential-refresh-period must be at least 1s");
    }
    if (kubeconfig != null && !kubeconfig.toFile().isFile()) {
      errors.rejectValue("kubeconfig", "missing", "steward.kubeconfig names a file that does not exist");
    }
    requireSet(errors, "tlsCipherOrder", tlsCipherOrder, "steward.tls-cipher-order");
    requireSet(errors, "shutdownTimeout", shutdownTimeout, "steward.shutdown-timeout");
    leaderElection.validate(errors);
    if (sharding.buckets < 1 || sharding.buckets > 1024) {
      errors.rejectValue("sharding.buckets", "range", "steward.sharding.buckets must be between 1 and 1024");
    }
  }

  private static void requireDnsLabel(Errors errors, String field, String value, String what) {
    if (value == null || !DNS_LABEL.matcher(value).matches()) {
      errors.rejectValue(field, "pattern", "steward." + toKebab(field) + " must be " + what + " (a DNS-1123 label)");
    }
  }

  private static void requireSet(Errors errors, String field, Object value, String property) {
    if (value == null) {
      errors.rejectValue(field, "required", property + " must be set");
    }
  }

  /** {@code leaderElection.leaseName} as the property is spelled: {@code leader-election.lease-name}. */
  static String toKebab(String field) {
    return field.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  public static class LeaderElection {
    /** Off only for a single replica: with several, every one would reconcile at once. */
    private boolean enabled = true;

    /** Name of the Lease the replicas compete for. */
    private String leaseName = "steward-leader";

    /** Namespace of the Lease; defaults to the pod's namespace (POD_NAMESPACE), else "default". */
    private String leaseNamespace;

    /** This replica's name in the Lease; defaults to POD_NAME, else the host name plus a random suffix. */
    private String identity;

    /** How long a Lease holds once renewed: a standby takes over this long after the leader's last renewal. */
    private Duration leaseDuration = Duration.ofSeconds(15);

    /**
     * How long the leader keeps trying to renew before it gives up leading and exits; its term ends
     * slightly earlier (see docs/fencing.md).
     */
    private Duration renewDeadline = Duration.ofSeconds(10);

    /** How often the leader renews the Lease and a standby tries to take it. */
    private Duration retryPeriod = Duration.ofSeconds(2);

    void validate(Errors errors) {
      requireDnsLabel(errors, "leaderElection.leaseName", leaseName, "a Lease name");
      if (leaseNamespace != null) {
        requireDnsLabel(errors, "leaderElection.leaseNamespace", leaseNamespace, "a namespace name");
      }
      boolean consistent = leaseDuration != null && renewDeadline != null && retryPeriod != null
          && leaseDuration.compareTo(renewDeadline) > 0 && renewDeadline.compareTo(retryPeriod) > 0
          && !retryPeriod.isNegative() && !retryPeriod.isZero();
      if (!consistent) {
        errors.rejectValue("leaderElection", "timings",
            "steward.leader-election timings must satisfy lease-duration > renew-deadline > retry-period > 0");
      }
    }

    /** The three timings, as the runtime takes them. */
    public LeaseTimings timings() {
      return new LeaseTimings(leaseDuration, renewDeadline, retryPeriod);
    }

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public String getLeaseName() { return leaseName; }
    public void setLeaseName(String leaseName) { this.leaseName = leaseName; }
    public String getLeaseNamespace() { return leaseNamespace; }
    public void setLeaseNamespace(String leaseNamespace) { this.leaseNamespace = leaseNamespace; }
    public String getIdentity() { return identity; }
    public void setIdentity(String identity) { this.identity = identity; }
    public Duration getLeaseDuration() { return leaseDuration; }
    public void setLeaseDuration(Duration leaseDuration) { this.leaseDuration = leaseDuration; }
    public Duration getRenewDeadline() { return renewDeadline; }
    public void setRenewDeadline(Duration renewDeadline) { this.renewDeadline = renewDeadline; }
    public Duration getRetryPeriod() { return retryPeriod; }
    public void setRetryPeriod(Duration retryPeriod) { this.retryPeriod = retryPeriod; }
  }

  /**
   * Sharded mode: every replica works on its own share of the objects, split into a fixed number of
   * buckets, each owned through a Lease of its own. Lease timings are the leader election's.
   */
  public static class Sharding {
    /**
     * Every replica reconciles the WebApps of the buckets it owns, instead of one leader doing all;
     * uses the leader-election timings.
     */
    private boolean enabled = false;

    /** Fixed for the life of a deployment: the bucket of an object is part of its labels. */
    private int buckets = 32;

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public int getBuckets() { return buckets; }
    public void setBuckets(int buckets) { this.buckets = buckets; }
  }

  /** How writes are fenced when leader election is on. */
  public static class Fencing {
    /**
     * Refuse every write outside this replica's leadership term, exit the moment the term runs out,
     * and take another replica's Lease only once the monotonic clock says it expired (default).
     * Tests switch it off to show what the API server's admission policy refuses by itself and what
     * client-java's election alone would let happen; never switch it off in a cluster.
     */
    private boolean localGuard = true;

    public boolean isLocalGuard() { return localGuard; }
    public void setLocalGuard(boolean localGuard) { this.localGuard = localGuard; }
  }

  public List<String> getNamespaces() { return namespaces; }
  public void setNamespaces(List<String> namespaces) { this.namespaces = namespaces; }
  public int getWorkers() { return workers; }
  public void setWorkers(int workers) { this.workers = workers; }
  public Duration getResyncPeriod() { return resyncPeriod; }
  public void setResyncPeriod(Duration resyncPeriod) { this.resyncPeriod = resyncPeriod; }
  public Path getKubeconfig() { return kubeconfig; }
  public Duration getCredentialRefreshPeriod() { return credentialRefreshPeriod; }
  public void setCredentialRefreshPeriod(Duration credentialRefreshPeriod) { this.credentialRefreshPeriod = credentialRefreshPeriod; }
  public void setKubeconfig(Path kubeconfig) { this.kubeconfig = kubeconfig; }
  public TlsCipherOrder getTlsCipherOrder() { return tlsCipherOrder; }
  public void setTlsCipherOrder(TlsCipherOrder tlsCipherOrder) { this.tlsCipherOrder = tlsCipherOrder; }
  public Duration getShutdownTimeout() { return shutdownTimeout; }
  public boolean isStreamingLists() { return streamingLists; }
  public void setStreamingLists(boolean streamingLists) { this.streamingLists = streamingLists; }
  public void setShutdownTimeout(Duration shutdownTimeout) { this.shutdownTimeout = shutdownTimeout; }
  public LeaderElection getLeaderElection() { return leaderElection; }
  public Fencing getFencing() { return fencing; }
  public Sharding getSharding() { return sharding; }
}
