package io.steward.operator.runtime.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.steward.operator.runtime.support.Daemons;
import io.steward.operator.runtime.support.WorkInFlight;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.context.SmartLifecycle;
import tools.jackson.databind.json.JsonMapper;

/**
 * Serves Actuator's web endpoints (probes, metrics, Steward's own) on the JDK's HTTP server, two
 * handler threads, instead of a servlet container with Spring MVC: an operator serves nothing else
 * over HTTP (see docs/architecture.md for why). What each request is answered is the
 * {@link EndpointRouter}'s, as Spring MVC's adapter would answer it.
 */
public final class ActuatorHttpServer implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(ActuatorHttpServer.class);
  /** How long a stop waits for the requests in flight: probes and scrapes answer at once. */
  private static final Duration IN_FLIGHT_GRACE = Duration.ofSeconds(5);

  private final InetSocketAddress address;
  private final EndpointRouter router;
  private final IntConsumer boundPort;
  private final WorkInFlight inFlight = new WorkInFlight();
  private volatile HttpServer server;
  private ExecutorService handlers;

  /**
   * {@code endpointJson} writes Actuator's own response bodies ({@link OperationResponseBody}), as
   * Spring Boot keeps them apart from the application's JSON settings; {@code otherJson} the rest.
   * {@code boundPort} learns the port once bound (a configured 0 picks a free one).
   */
  public ActuatorHttpServer(InetSocketAddress address, String basePath, Collection<ExposableWebEndpoint> endpoints,
      JsonMapper endpointJson, JsonMapper otherJson, IntConsumer boundPort) {
    this.address = address;
    this.router = new EndpointRouter(basePath, endpoints, endpointJson, otherJson);
    this.boundPort = boundPort;
  }

  /** The port it listens on; -1 before start. */
  public int port() {
    HttpServer current = server;
    return current == null ? -1 : current.getAddress().getPort();
  }

  @Override
  public void start() {
    try {
      HttpServer created = HttpServer.create(address, 0);
      handlers = Executors.newFixedThreadPool(2, Daemons.named("actuator-http"));
      created.setExecutor(handlers);
      created.createContext("/", this::handle);
      created.start();
      server = created;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serve Actuator on " + address + " (server.port, server.address): "
          + e.getMessage(), e);
    }
    boundPort.accept(port());
    log.info("Actuator serves {} endpoint operations under http://{}:{}/{}", router.operations(),
        address.getHostString(), port(), router.basePath());
  }

  /** After the operator's own stop (a higher phase stops first), so that probes answer throughout it. */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE - 2048;
  }

  @Override
  public void stop() {
    HttpServer current = server;
    if (current == null) {
      return;
    }
    try {
      inFlight.awaitFinished(IN_FLIGHT_GRACE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    current.stop(0);
    handlers.shutdownNow();
    server = null;
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }

  private void handle(HttpExchange exchange) {
    inFlight.started();
    try {
      String host = exchange.getRequestHeaders().getFirst("Host");
      EndpointRouter.Request request = new EndpointRouter.Request(exchange.getRequestMethod(),
          exchange.getRequestURI().getRawPath(), exchange.getRequestURI().getRawQuery(),
          exchange.getRequestHeaders().get("Accept"), host == null ? address.getHostString() + ":" + port() : host,
          exchange.getRequestBody());
      answer(exchange, router.answer(request));
    } catch (IOException e) {
      log.debug("Actuator request {} {} not answered: {}", exchange.getRequestMethod(), exchange.getRequestURI(),
          e.toString());
    } finally {
      exchange.close();
      inFlight.finished();
    }
  }

  private void answer(HttpExchange exchange, EndpointRouter.Reply reply) throws IOException {
    if (reply.contentType() != null) {
      exchange.getResponseHeaders().set("Content-Type", reply.contentType());
    }
    if (reply.allow() != null) {
      exchange.getResponseHeaders().set("Allow", reply.allow());
    }
    boolean head = exchange.getRequestMethod().equals("HEAD");
    if (reply.body() == null || head) {
      exchange.sendResponseHeaders(reply.status(), -1);
      return;
    }
    exchange.sendResponseHeaders(reply.status(), reply.body().length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(reply.body());
    }
  }
}
