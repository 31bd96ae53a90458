package io.steward.testing.cluster;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeCondition;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1NodeStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A real Kubernetes control plane on loopback, built from source (see src/test/controlplane).
 *
 * <ul>
 *   <li>{@link Shape#API}: etcd and kube-apiserver, the envtest equivalent.
 *   <li>{@link Shape#FULL}: also kube-controller-manager (deployments, replica sets, garbage
 *       collection, namespaces, service accounts), kube-scheduler and kwok with fake nodes, so pods
 *       are scheduled and "run" and owners' dependents are garbage-collected.
 * </ul>
 *
 * Everything lives in one directory: certificates, kubeconfigs, etcd data, component logs and the
 * API server's audit log. Every component can be stopped and started again for fault tests.
 */
public final class LocalCluster implements AutoCloseable {
  public enum Shape { API, FULL }

  /** A user in system:masters whose watches the audit log records too, each once it has ended. */
  public static final String WATCHES_AUDITED = "steward-watches-audited";
  /** The Kubernetes user this cluster's admin credentials authenticate as. */
  public static final String ADMIN_USER = "steward-admin";
  public static final int FAKE_NODES = 2;
  /**
   * Pods each fake node admits: more than the largest fleet any test or benchmark runs, with its
   * rollouts' surge, so a rollout never waits for room (the scheduler reports "Too many pods").
   */
  static final int PODS_PER_FAKE_NODE = 25_000;

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final String MASTERS = "system:masters";
  private static final List<String> CONTROLLERS = List.of("deployment-controller", "replicaset-controller",
      "garbage-collector-controller", "namespace-controller", "serviceaccount-controller",
      "serviceaccount-token-controller", "root-ca-certificate-publisher-controller",
      // Fills the default view/edit/admin roles from the ClusterRoles labelled aggregate-to-*.
      "clusterrole-aggregation-controller",
      // Type-checks ValidatingAdmissionPolicies against their resources' and parameters' schemas (status).
      "validatingadmissionpolicy-status-controller");

  private final Path dir;
  private final Path binary;
  private final ClusterPki pki;
  private final int etcdPort;
  private final int apiPort;
  private final Path kubeconfig;
  private final Path auditLog;
  private final ComponentProcess etcd;
  private final ComponentProcess apiServer;
  private ComponentProcess controllerManager;
  private ComponentProcess scheduler;
  private ComponentProcess kwok;
  private final ApiClient admin;
  private final Thread shutdownHook = new Thread(this::stopAll, "local-cluster-shutdown");
  private Shape shape = Shape.API;

  private LocalCluster(Path dir, List<String> featureGates) {
    this.dir = dir.toAbsolutePath();
    this.binary = ControlPlaneBinary.get();
    deleteRecursively(this.dir);
    this.pki = ClusterPki.createOrReuse(this.dir.resolve("pki"));
    this.etcdPort = freePort();
    int etcdPeerPort = freePort();
    this.apiPort = freePort();
    this.auditLog = this.dir.resolve("audit.log");
    Path logs = this.dir.resolve("logs");
    String etcdUrl = "http://127.0.0.1:" + etcdPort;
    String peerUrl = "http://127.0.0.1:" + etcdPeerPort;
    this.etcd = new ComponentProcess("etcd", binary, List.of(
        "--name=steward", "--data-dir=" + this.dir.resolve("etcd"),
        "--listen-client-urls=" + etcdUrl, "--advertise-client-urls=" + etcdUrl,
        "--listen-peer-urls=" + peerUrl, "--initial-advertise-peer-urls=" + peerUrl,
        "--initial-cluster=steward=" + peerUrl, "--unsafe-no-fsync=true", "--log-level=warn",
        // Room for the memory scenario's thousands of largest WebApps and their history (default 2 GiB).
        "--quota-backend-bytes=" + (8L << 30)), logs);
    this.apiServer = new ComponentProcess("kube-apiserver", binary, List.of(
        "--etcd-servers=" + etcdUrl,
        "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + apiPort,
        "--tls-cert-file=" + pki.servingCert, "--tls-private-key-file=" + pki.servingKey,
        "--client-ca-file=" + pki.caCert, "--authorization-mode=RBAC",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        "--service-account-key-file=" + pki.serviceAccountPublicKey,
        "--service-account-signing-key-file=" + pki.serviceAccountKey,
        "--service-cluster-ip-range=10.0.0.0/16", "--allow-privileged=true",
        "--endpoint-reconciler-type=none", "--profiling=false",
        // No node-lifecycle controller runs to lift the not-ready taint this plugin puts on new nodes.
        "--disable-admission-plugins=TaintNodesByCondition",
        // Off by default upstream, on in OpenShift: an owner reference that blocks the owner's deletion
        // needs update on the owner's finalizers, so the operator's tests prove its RBAC covers that.
        "--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
        // GenericWorkload, beta and off by default in 1.37: adds spec.schedulingGroup to Pod specs, a
        // field client-java 25's models do not know, so tests can show Steward coping with a newer API
        // server. ShardedListAndWatch, alpha: list and watch by hash range (ShardSelectorIT).
        "--feature-gates=" + String.join(",", featureGates(featureGates)),
        "--audit-policy-file=" + writeAuditPolicy(), "--audit-log-path=" + auditLog,
        "--audit-log-format=json", "--audit-log-maxsize=0"), logs);
    this.kubeconfig = writeKubeconfig(ADMIN_USER, MASTERS);
    this.admin = clientFor(kubeconfig, "steward-tests");
  }

  /** Starts a cluster of the given shape in {@code dir}, which is emptied first. */
  public static LocalCluster start(Shape shape, Path dir) {
    return start(shape, dir, List.of());
  }

  /**
   * As {@link #start(Shape, Path)}, with more of the API server's feature gates set
   * ({@code WatchList=false}, say): a cluster of a test's own, for behaviour the shared one lacks.
   */
  public static LocalCluster start(Shape shape, Path dir, List<String> featureGates) {
    LocalCluster cluster = new LocalCluster(dir, featureGates);
    Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
    try {
      cluster.startCore();
      cluster.ensure(shape);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private void startCore() {
    etcd.start(() -> httpOk("http://127.0.0.1:" + etcdPort + "/health"), READY_TIMEOUT);
    apiServer.start(this::apiServerReady, READY_TIMEOUT);
  }

  /** Adds what {@code wanted} needs beyond what runs now (API → FULL); never removes anything. */
  public synchronized void ensure(Shape wanted) {
    if (wanted == Shape.API || shape == Shape.FULL) {
      return;
    }
    Path logs = dir.resolve("logs");
    controllerManager = new ComponentProcess("kube-controller-manager", binary, List.of(
        "--kubeconfig=" + writeKubeconfig("system:kube-controller-manager", MASTERS),
        "--leader-elect=false", "--secure-port=0", "--controllers=" + String.join(",", CONTROLLERS),
        "--use-service-account-credentials=false",
        "--service-account-private-key-file=" + pki.serviceAccountKey, "--root-ca-file=" + pki.caCert,
        "--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10",
        "--concurrent-gc-syncs=20", "--kube-api-qps=200", "--kube-api-burst=400"), logs);
    controllerManager.start(this::defaultServiceAccountExists, READY_TIMEOUT);
    scheduler = new ComponentProcess("kube-scheduler", binary, List.of(
        "--kubeconfig=" + writeKubeconfig("system:kube-scheduler", MASTERS),
        "--leader-elect=false", "--secure-port=0", "--kube-api-qps=200", "--kube-api-burst=400"), logs);
    scheduler.start(() -> true, READY_TIMEOUT);
    kwok = new ComponentProcess("kwok", binary, List.of(
        "--kubeconfig=" + writeKubeconfig("kwok", MASTERS),
        "--manage-all-nodes=true", "--config=" + writeKwokStages(),
        "--server-address=127.0.0.1:" + freePort(), "--node-ip=127.0.0.1"), logs);
    createFakeNodes();
    kwok.start(this::fakeNodesReady, READY_TIMEOUT);
    shape = Shape.FULL;
  }

  /** The API server's feature gates: the suite's own, then {@code more}, which win. */
  private static List<String> featureGates(List<String> more) {
    List<String> gates = new ArrayList<>(List.of("GenericWorkload=true", "ShardedListAndWatch=true"));
    gates.addAll(more);
    return gates;
  }

  public Shape shape() {
    return shape;
  }

  public Path directory() {
    return dir;
  }

  /** Admin kubeconfig (system:masters), for kubectl and for tests. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** Kubeconfig for another user in {@code system:masters}, so the audit log can tell callers apart. */
  public Path kubeconfigFor(String user) {
    return writeKubeconfig(user, MASTERS);
  }

  /** Kubeconfig for a user in {@code system:masters} reaching the API server at {@code serverUrl} (a {@link FaultProxy}). */
  public Path kubeconfigVia(String user, String serverUrl) {
    return writeKubeconfig(user, MASTERS, serverUrl, user.replace(':', '-') + "-via-" + URI.create(serverUrl).getPort());
  }

  public int apiServerPort() {
    return apiPort;
  }

  /** Kubeconfig for a user in {@code group} only: what RBAC grants that user or group, and nothing more. */
  public Path kubeconfigFor(String user, String group) {
    if (MASTERS.equals(group)) {
      throw new IllegalArgumentException("kubeconfigFor(user, group) is for users outside " + MASTERS);
    }
    return writeKubeconfig(user, group);
  }

  public String apiServerUrl() {
    return "https://127.0.0.1:" + apiPort;
  }

  public Path caCertificate() {
    return pki.caCert;
  }

  /**
   * Rotates the API server's serving certificate (a new key, the same CA and names) and waits until
   * a new connection is served the new one; connections already open keep the old one.
   */
  public X509Certificate rotateServingCertificate(Duration within) {
    X509Certificate rotated = pki.rotateServingCertificate();
    long deadline = System.nanoTime() + within.toNanos();
    while (!rotated.equals(servedCertificate())) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the API server still serves its old certificate after " + within);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the new serving certificate", e);
      }
    }
    return rotated;
  }

  /** The certificate a new TLS connection to the API server is served (not verified: only looked at). */
  public X509Certificate servedCertificate() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new AcceptAnyServer()}, null);
      try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", apiPort)) {
        socket.startHandshake();
        return (X509Certificate) socket.getSession().getPeerCertificates()[0];
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** For {@link #servedCertificate} only: it reads the certificate and sends nothing over the connection. */
  private static final class AcceptAnyServer implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }

  /** A shared admin client for tests. */
  public ApiClient adminClient() {
    return admin;
  }

  public AuditLog auditLog() {
    return new AuditLog(auditLog);
  }

  /** etcd's client URL (plain HTTP on loopback), for faults only etcd can inject, such as compaction. */
  public String etcdUrl() {
    return "http://127.0.0.1:" + etcdPort;
  }

  public ComponentProcess etcd() {
    return etcd;
  }

  public ComponentProcess apiServer() {
    return apiServer;
  }

  public List<ComponentProcess> components() {
    List<ComponentProcess> all = new ArrayList<>(List.of(etcd, apiServer));
    for (ComponentProcess c : new ComponentProcess[] {controllerManager, scheduler, kwok}) {
      if (c != null) {
        all.add(c);
      }
    }
    return all;
  }

  /** Starts a stopped component again with its original arguments and waits until it is ready. */
  public void restart(ComponentProcess component) {
    BooleanSupplier ready = component == etcd
        ? () -> httpOk("http://127.0.0.1:" + etcdPort + "/health")
        : component == apiServer ? this::apiServerReady : () -> true;
    component.start(ready, READY_TIMEOUT);
  }

  @Override
  public void close() {
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook is running or has run
    }
  }

  private synchronized void stopAll() {
    List<ComponentProcess> all = components();
    for (int i = all.size() - 1; i >= 0; i--) {
      all.get(i).stop();
    }
  }

  // ---- readiness -------------------------------------------------------------------------------

  private boolean apiServerReady() {
    try (okhttp3.Response response = admin.getHttpClient()
        .newCall(new okhttp3.Request.Builder().url(apiServerUrl() + "/readyz").build()).execute()) {
      return response.code() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  private boolean defaultServiceAccountExists() {
    try {
      new CoreV1Api(admin).readNamespacedServiceAccount("default", "default").execute();
      return true;
    } catch (ApiException e) {
      return false;
    }
  }

  private void createFakeNodes() {
    CoreV1Api core = new CoreV1Api(admin);
    for (int i = 0; i < FAKE_NODES; i++) {
      String name = "kwok-node-" + i;
      Map<String, Quantity> capacity = Map.of("cpu", Quantity.fromString("64"),
          "memory", Quantity.fromString("256Gi"), "pods", Quantity.fromString(Integer.toString(PODS_PER_FAKE_NODE)));
      V1Node node = new V1Node()
          .metadata(new V1ObjectMeta().name(name)
              .labels(Map.of("type", "kwok", "kubernetes.io/hostname", name, "kubernetes.io/os", "linux"))
              .annotations(Map.of("kwok.x-k8s.io/node", "fake", "node.alpha.kubernetes.io/ttl", "0")))
          .spec(new V1NodeSpec())
          .status(new V1NodeStatus().capacity(capacity).allocatable(capacity));
      try {
        core.createNode(node).execute();
      } catch (ApiException e) {
        if (e.getCode() != 409) {
          throw new IllegalStateException("local cluster: could not create fake node " + name + ": "
              + e.getResponseBody(), e);
        }
      }
    }
  }

  private boolean fakeNodesReady() {
    try {
      return new CoreV1Api(admin).listNode().labelSelector("type=kwok").execute().getItems().stream()
          .filter(n -> n.getStatus() != null && n.getStatus().getConditions() != null)
          .filter(n -> n.getStatus().getConditions().stream()
              .anyMatch((V1NodeCondition c) -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
          .count() == FAKE_NODES;
    } catch (ApiException e) {
      return false;
    }
  }

  private static boolean httpOk(String url) {
    try {
      HttpResponse<Void> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.discarding());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  // ---- files -----------------------------------------------------------------------------------

  private Path writeAuditPolicy() {
    // Mutations and direct reads by every client except the control plane's own components;
    // watches and health probes are left out to keep the log small, but for the watches of one user
    // (WATCHES_AUDITED), logged when they end.
    String policy = """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: ["RequestReceived", "ResponseStarted"]
        rules:
          - level: None
            users: ["system:kube-controller-manager", "system:kube-scheduler", "kwok", "system:apiserver"]
          - level: Metadata
            verbs: ["watch"]
            users: ["%s"]
          - level: None
            verbs: ["watch"]
          - level: None
            nonResourceURLs: ["*"]
          # Lease writes with their body: who a write names as holder, or that it releases.
          - level: Request
            verbs: ["create", "update", "patch"]
            resources: [{group: "coordination.k8s.io", resources: ["leases"]}]
          - level: Metadata
        """.formatted(WATCHES_AUDITED);
    return write(dir.resolve("audit-policy.yaml"), policy);
  }

  private Path writeKwokStages() {
    try {
      Process process = new ProcessBuilder(binary.toString(), "kwok-stages").start();
      process.getOutputStream().close();
      String stages = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (process.waitFor() != 0 || stages.isBlank()) {
        throw new IllegalStateException("local cluster: `controlplane kwok-stages` printed no stages");
      }
      return write(dir.resolve("kwok-stages.yaml"), stages);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private Path writeKubeconfig(String user, String group) {
    return writeKubeconfig(user, group, apiServerUrl(), user.replace(':', '-'));
  }

  private Path writeKubeconfig(String user, String group, String serverUrl, String fileName) {
    Path[] credentials = pki.clientCertificate(user, group);
    String file = fileName + ".kubeconfig";
    String kubeconfigText = """
        apiVersion: v1
        kind: Config
        clusters:
          - name: steward-local
            cluster:
              server: %s
              certificate-authority-data: %s
        users:
          - name: %s
            user:
              client-certificate-data: %s
              client-key-data: %s
        contexts:
          - name: steward-local
            context:
              cluster: steward-local
              user: %s
        current-context: steward-local
        """.formatted(serverUrl, base64(pki.caCert), user, base64(credentials[0]),
        base64(credentials[1]), user);
    Path target = user.equals(ADMIN_USER) ? dir.resolve("kubeconfig") : dir.resolve("kubeconfigs").resolve(file);
    return write(target, kubeconfigText);
  }

  /** A client for a kubeconfig with no read timeout limits beyond client-java's defaults. */
  public static ApiClient clientFor(Path kubeconfig, String userAgent) {
    try {
      ApiClient client = ClientBuilder.kubeconfig(
          KubeConfig.loadKubeConfig(new StringReader(Files.readString(kubeconfig)))).build();
      client.setUserAgent(userAgent);
      return client;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String base64(Path file) {
    try {
      return Base64.getEncoder().encodeToString(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path write(Path file, String content) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
