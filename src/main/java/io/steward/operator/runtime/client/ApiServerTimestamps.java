package io.steward.operator.runtime.client;

import com.google.gson.JsonPrimitive;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Reads timestamps as the API server writes them ({@code 2026-12-05T21:12:59Z}, with six fraction
 * digits for a MicroTime) digit by digit, and hands anything else, and every write, to client-java's
 * own adapter, so the values and errors are client-java's. client-java parses each one with a
 * {@code DateTimeFormatter} and its general resolver, a cost paid for several timestamps of every
 * object an informer decodes (creation, each managedFields entry, conditions, Lease times).
 */
final class ApiServerTimestamps extends TypeAdapter<OffsetDateTime> {
  private final TypeAdapter<OffsetDateTime> clientJava;

  ApiServerTimestamps(TypeAdapter<OffsetDateTime> clientJava) {
    this.clientJava = clientJava;
  }

  /** The adapter this one hands what it does not read itself. */
  TypeAdapter<OffsetDateTime> clientJavas() {
    return clientJava;
  }

  @Override
  public void write(JsonWriter out, OffsetDateTime value) throws IOException {
    clientJava.write(out, value);
  }

  @Override
  public OffsetDateTime read(JsonReader in) throws IOException {
    if (in.peek() != JsonToken.STRING) {
      return clientJava.read(in);
    }
    String text = in.nextString();
    OffsetDateTime utc = parseUtc(text);
    return utc != null ? utc : clientJava.fromJsonTree(new JsonPrimitive(text));
  }

  /**
   * {@code yyyy-MM-ddTHH:mm:ssZ} or {@code yyyy-MM-ddTHH:mm:ss.SSSSSSZ}, the shapes of the API
   * server's Time and MicroTime; null for any other shape, or for a value out of range (client-java's
   * formatter resolves some of those, the 30th of February to the 28th, 24:00 to the next day), which
   * client-java's adapter then judges.
   */
  static OffsetDateTime parseUtc(String text) {
    int length = text.length();
    if ((length != 20 && length != 27) || text.charAt(length - 1) != 'Z' || text.charAt(4) != '-'
        || text.charAt(7) != '-' || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':') {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 2);
    int day = digits(text, 8, 2);
    int hour = digits(text, 11, 2);
    int minute = digits(text, 14, 2);
    int second = digits(text, 17, 2);
    int micros = 0;
    if (length == 27) {
      micros = text.charAt(19) == '.' ? digits(text, 20, 6) : -1;
    }
    if ((year | month | day | hour | minute | second | micros) < 0) {
      return null;
    }
    try {
      return OffsetDateTime.of(year, month, day, hour, minute, second, micros * 1000, ZoneOffset.UTC);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** The decimal value of {@code count} ASCII digits from {@code start}; -1 if any is not one. */
  private static int digits(String text, int start, int count) {
    int value = 0;
    for (int i = start; i < start + count; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
