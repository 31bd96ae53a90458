package io.steward.operator.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.ToIntFunction;

/** A started HTTP server on a free loopback port that answers every request with no body. */
public final class LoopbackHttp {
  private LoopbackHttp() {}

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
