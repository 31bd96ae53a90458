package io.steward.operator.support;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An OTLP/HTTP trace receiver on a loopback port: it decodes each ExportTraceServiceRequest
 * (protobuf, as OpenTelemetry's exporter sends it by default) into {@link Span}s. Only the fields a
 * test reads are decoded (ids, name, string/int/bool attributes, status code), by their field
 * numbers in opentelemetry-proto's trace.proto and common.proto.
 */
public final class OtlpReceiver implements AutoCloseable {
  public record Span(String traceId, String spanId, String parentSpanId, String name, Map<String, String> attributes,
      int statusCode, Map<String, String> resource) {
    public String attribute(String key) {
      return attributes.get(key);
    }
  }

  private final HttpServer server;
  private final List<Span> spans = new CopyOnWriteArrayList<>();
  private final List<String> contentTypes = new CopyOnWriteArrayList<>();

  public OtlpReceiver() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/v1/traces", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      contentTypes.add(String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")));
      int status = 200;
      try {
        spans.addAll(decodeRequest(body));
      } catch (IOException | RuntimeException e) {
        status = 400;
      }
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
    });
    server.start();
  }

  /** The URL to configure as the OTLP traces endpoint. */
  public String endpoint() {
    return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort()
        + "/v1/traces";
  }

  public List<Span> spans() {
    return List.copyOf(spans);
  }

  public List<String> contentTypes() {
    return List.copyOf(contentTypes);
  }

  @Override
  public void close() {
    server.stop(0);
  }

  static List<Span> decodeRequest(byte[] body) throws IOException {
    List<Span> decoded = new ArrayList<>();
    for (ByteString resourceSpans : fields(CodedInputStream.newInstance(body), 1)) {
      Map<String, String> resource = new LinkedHashMap<>();
      for (ByteString r : fields(resourceSpans.newCodedInput(), 1)) {
        for (ByteString kv : fields(r.newCodedInput(), 1)) {
          putKeyValue(kv, resource);
        }
      }
      for (ByteString scopeSpans : fields(resourceSpans.newCodedInput(), 2)) {
        for (ByteString span : fields(scopeSpans.newCodedInput(), 2)) {
          decoded.add(span(span, resource));
        }
      }
    }
    return decoded;
  }

  private static Span span(ByteString bytes, Map<String, String> resource) throws IOException {
    CodedInputStream in = bytes.newCodedInput();
    String traceId = "";
    String spanId = "";
    String parent = "";
    String name = "";
    int status = 0;
    Map<String, String> attributes = new LinkedHashMap<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> traceId = HexFormat.of().formatHex(in.readByteArray());
        case 2 -> spanId = HexFormat.of().formatHex(in.readByteArray());
        case 4 -> parent = HexFormat.of().formatHex(in.readByteArray());
        case 5 -> name = in.readStringRequireUtf8();
        case 9 -> putKeyValue(in.readBytes(), attributes);
        case 15 -> {
          CodedInputStream s = in.readBytes().newCodedInput();
          for (int t = s.readTag(); t != 0; t = s.readTag()) {
            if (WireFormat.getTagFieldNumber(t) == 3) {
              status = s.readEnum();
            } else {
              s.skipField(t);
            }
          }
        }
        default -> in.skipField(tag);
      }
    }
    return new Span(traceId, spanId, parent, name, attributes, status, resource);
  }

  private static void putKeyValue(ByteString bytes, Map<String, String> into) throws IOException {
    CodedInputStream in = bytes.newCodedInput();
    String key = null;
    String value = null;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> key = in.readStringRequireUtf8();
        case 2 -> value = anyValue(in.readBytes());
        default -> in.skipField(tag);
      }
    }
    if (key != null) {
      into.put(key, value);
    }
  }

  private static String anyValue(ByteString bytes) throws IOException {
    CodedInputStream in = bytes.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> {
          return in.readStringRequireUtf8();
        }
        case 2 -> {
          return String.valueOf(in.readBool());
        }
        case 3 -> {
          return String.valueOf(in.readInt64());
        }
        case 4 -> {
          return String.valueOf(in.readDouble());
        }
        default -> in.skipField(tag);
      }
    }
    return null;
  }

  /** The length-delimited occurrences of field {@code number} in a message. */
  private static List<ByteString> fields(CodedInputStream in, int number) throws IOException {
    List<ByteString> found = new ArrayList<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (WireFormat.getTagFieldNumber(tag) == number
          && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        found.add(in.readBytes());
      } else {
        in.skipField(tag);
      }
    }
    return found;
  }
}
