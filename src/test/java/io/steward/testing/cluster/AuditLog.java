package io.steward.testing.cluster;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The API server's audit log: a record, kept by the server itself, of who sent which request. Tests
 * use it to prove what an operator did or did not write, without trusting the operator's word.
 */
public final class AuditLog {
  public static final Set<String> MUTATING = Set.of("create", "update", "patch", "delete", "deletecollection");

  private final Path file;

  AuditLog(Path file) {
    this.file = file;
  }

  /** An audit log file in the API server's format, written elsewhere (a test's own, say). */
  public static AuditLog read(Path file) {
    return new AuditLog(file);
  }

  /**
   * One completed request. {@code subresource} is empty for the main resource; {@code message} is the
   * server's message for a failed one; {@code leaseHolder} is the holder a Lease write names (empty
   * for a release or for anything but a Lease write); {@code requestUri} is the path and query as sent.
   */
  public record Entry(Instant received, String verb, String user, String userAgent, String apiGroup,
      String resource, String subresource, String namespace, String name, int code, String message,
      String leaseHolder, String requestUri) {

    public boolean mutating() {
      return MUTATING.contains(verb);
    }

    public boolean fromUserAgentStartingWith(String prefix) {
      return userAgent != null && userAgent.startsWith(prefix);
    }
  }

  public List<Entry> entries() {
    return entries(e -> true);
  }

  public List<Entry> entries(Predicate<Entry> filter) {
    if (!Files.exists(file)) {
      return List.of();
    }
    try (Stream<String> lines = Files.lines(file)) {
      return lines.filter(l -> !l.isBlank()).map(AuditLog::parse).filter(filter).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The log's size in bytes now: a mark for {@link #entriesAfter}. */
  public long size() {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Complete entries written after {@code mark} (a {@link #size()} taken earlier) that match
   * {@code filter}: reads only the new part of the log, for long benchmark runs.
   */
  public List<Entry> entriesAfter(long mark, Predicate<Entry> filter) {
    if (!Files.exists(file)) {
      return List.of();
    }
    try (var channel = java.nio.channels.FileChannel.open(file);
        var reader = new java.io.BufferedReader(new java.io.InputStreamReader(
            java.nio.channels.Channels.newInputStream(channel.position(Math.max(0, mark - 1))),
            java.nio.charset.StandardCharsets.UTF_8))) {
      List<Entry> result = new java.util.ArrayList<>();
      if (mark > 0) {
        reader.readLine(); // the rest of the line the mark fell in (just its newline when on a boundary)
      }
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (line.isBlank() || !line.endsWith("}")) {
          continue; // still being written
        }
        Entry entry = parse(line);
        if (filter.test(entry)) {
          result.add(entry);
        }
      }
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Mutating requests by clients whose user agent starts with {@code userAgentPrefix}, since {@code after}. */
  public List<Entry> writesBy(String userAgentPrefix, Instant after) {
    return entries(e -> e.mutating() && e.fromUserAgentStartingWith(userAgentPrefix) && !e.received().isBefore(after));
  }

  private static Entry parse(String line) {
    JsonObject event = JsonParser.parseString(line).getAsJsonObject();
    JsonObject ref = event.has("objectRef") ? event.getAsJsonObject("objectRef") : new JsonObject();
    JsonObject user = event.has("user") ? event.getAsJsonObject("user") : new JsonObject();
    JsonObject status = event.has("responseStatus") ? event.getAsJsonObject("responseStatus") : new JsonObject();
    return new Entry(Instant.parse(text(event, "requestReceivedTimestamp")), text(event, "verb"),
        text(user, "username"), text(event, "userAgent"), text(ref, "apiGroup"), text(ref, "resource"),
        text(ref, "subresource"), text(ref, "namespace"), text(ref, "name"),
        status.has("code") ? status.get("code").getAsInt() : 0, text(status, "message"), leaseHolder(event),
        text(event, "requestURI"));
  }

  private static String leaseHolder(JsonObject event) {
    if (!event.has("requestObject") || !event.get("requestObject").isJsonObject()) {
      return "";
    }
    JsonObject request = event.getAsJsonObject("requestObject");
    return request.has("spec") && request.get("spec").isJsonObject()
        ? text(request.getAsJsonObject("spec"), "holderIdentity") : "";
  }

  private static String text(JsonObject object, String field) {
    return object.has(field) && !object.get(field).isJsonNull() ? object.get(field).getAsString() : "";
  }
}
