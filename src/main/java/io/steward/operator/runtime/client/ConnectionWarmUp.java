package io.steward.operator.runtime.client;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.steward.operator.runtime.support.Daemons;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects to the API server while the application context is still being made. The first TLS
 * handshake of a freshly started JVM runs cold code; begun here, on a thread of its own, it overlaps
 * with the rest of the start instead of delaying the informers' first lists, which then find the
 * connection open (one HTTP/2 connection, in the pool every client made from this one shares)
 * rather than each opening one of their own. It asks for the server's version, which every
 * authenticated user may read; nothing depends on the answer, and a failure only means the
 * informers connect themselves, as they would anyway.
 */
public final class ConnectionWarmUp {
  private static final Logger log = LoggerFactory.getLogger(ConnectionWarmUp.class);

  private ConnectionWarmUp() {
  }

  /** Sends the request from a daemon thread; the future completes when it has ended, however it ended. */
  public static CompletableFuture<Void> begin(ApiClient client) {
    CompletableFuture<Void> ended = new CompletableFuture<>();
    Daemons.named("connection-warm-up").newThread(() -> {
      try {
        new VersionApi(client).getCode().execute();
      } catch (ApiException | RuntimeException e) {
        log.debug("Connecting ahead of the informers failed; they will connect themselves", e);
      } finally {
        ended.complete(null);
      }
    }).start();
    return ended;
  }
}
