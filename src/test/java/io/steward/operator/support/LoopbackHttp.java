package io.steward.operator.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.function.ToIntFunction;

/** A started HTTP server on a free loopback port that answers every request with no body. */
public final class LoopbackHttp {
  private LoopbackHttp() {}

  /** A path whose requests are held until {@link #answer}: a write on its way, for as long as a test needs. */
  public static final class HeldPath {
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch answer = new CountDownLatch(1);

    /** Holds requests to {@code path} on {@code server} until {@link #answer}, then answers 200. */
    public HeldPath(HttpServer server, String path) {
      server.createContext(path, exchange -> {
        arrived.countDown();
        try {
          answer.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        exchange.sendResponseHeaders(200, -1);
        exchange.close();
      });
    }

    public void awaitArrival() throws InterruptedException {
      arrived.await();
    }

    public void answer() {
      answer.countDown();
    }
  }

  /** Answers with the status {@code status} returns for the exchange (which may also record it). */
  public static HttpServer answering(ToIntFunction<HttpExchange> status) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/", exchange -> {
        int code = status.applyAsInt(exchange);
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(code, -1);
        exchange.close();
      });
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
