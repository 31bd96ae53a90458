package io.steward.operator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import com.google.gson.JsonPrimitive;
import com.google.gson.TypeAdapter;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ApiServerTimestampsTest {
  /** client-java's own adapter, as its {@code JSON} configures it (under the lenient one, if installed). */
  private static final TypeAdapter<OffsetDateTime> CLIENT_JAVA = clientJavas();
  private static final ApiServerTimestamps FAST = new ApiServerTimestamps(CLIENT_JAVA);

  @Test
  void readsTheApiServersShapesDigitByDigit() {
    assertThat(ApiServerTimestamps.parseUtc("2026-12-05T21:12:59Z"))
        .isEqualTo(OffsetDateTime.of(2026, 12, 5, 21, 12, 59, 0, ZoneOffset.UTC));
    assertThat(ApiServerTimestamps.parseUtc("2026-12-05T21:12:59.123456Z"))
        .isEqualTo(OffsetDateTime.of(2026, 12, 5, 21, 12, 59, 123_456_000, ZoneOffset.UTC));
    assertThat(ApiServerTimestamps.parseUtc("2026-02-30T00:00:00Z")).as("left to client-java").isNull();
    assertThat(ApiServerTimestamps.parseUtc("2026-12-05T21:12:59+0000")).as("left to client-java").isNull();
  }

  /**
   * Whatever the string, the value read (or the error) is client-java's: fails if the digit-by-digit
   * reading accepts a shape or value client-java's formatter rejects or resolves differently.
   */
  @Test
  void agreesWithClientJavaOnEveryString() {
    Random random = new Random(20261205);
    List<String> cases = new ArrayList<>(List.of("2026-12-05T21:12:59Z", "2026-12-05T21:12:59.000001Z",
        "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "2024-02-29T12:00:00Z",
        "2026-02-29T12:00:00Z", "2026-02-30T12:00:00Z", "2026-04-31T12:00:00Z", "2026-13-01T00:00:00Z",
        "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
        "2026-01-01T23:59:60Z", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z", "2026-01-01T00:00:00+0000",
        "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00.123Z", "2026-01-01T00:00:00.123456789Z",
        "2026-01-01T00:00:00.Z", "2026-01-01T00:00Z", "+2026-01-01T00:00:00Z", "12026-01-01T00:00:00Z",
        "2026-01-01T00:00:00,123456Z", "2026-01-01 00:00:00Z", "2026-1-01T00:00:00Z", "", "Z",
        "2026-01-01T00:00:0٣Z", "2026-01-01T00:00:00.12345aZ", "-026-01-01T00:00:00Z"));
    String alphabet = "0123456789-T:.Z+z ";
    for (int i = 0; i < 20_000; i++) {
      char[] text = randomTimestamp(random).toCharArray();
      for (int m = random.nextInt(3); m > 0; m--) { // mutate a few characters
        text[random.nextInt(text.length)] = alphabet.charAt(random.nextInt(alphabet.length()));
      }
      cases.add(new String(text));
    }
    for (String text : cases) {
      assertThat(outcome(FAST, text)).as("reading %s", text).isEqualTo(outcome(CLIENT_JAVA, text));
    }
  }

  @Test
  void theLenientGsonReadsTimestampsWithIt() {
    Gson lenient = LenientJson.create(new JSON().getGson());
    assertThat(lenient.getAdapter(OffsetDateTime.class)).isInstanceOf(ApiServerTimestamps.class);
    V1ObjectMeta metadata = lenient.fromJson("{\"creationTimestamp\":\"2026-12-05T21:12:59Z\"}", V1ObjectMeta.class);
    assertThat(metadata.getCreationTimestamp()).isEqualTo(OffsetDateTime.of(2026, 12, 5, 21, 12, 59, 0, ZoneOffset.UTC));
    assertThat(lenient.toJson(metadata)).as("written as client-java writes it")
        .contains("\"creationTimestamp\":" + CLIENT_JAVA.toJson(metadata.getCreationTimestamp()));
  }

  private static TypeAdapter<OffsetDateTime> clientJavas() {
    TypeAdapter<OffsetDateTime> adapter = new JSON().getGson().getAdapter(OffsetDateTime.class);
    while (adapter instanceof ApiServerTimestamps ours) {
      adapter = ours.clientJavas();
    }
    assertThat(adapter).isInstanceOf(JSON.OffsetDateTimeTypeAdapter.class);
    return adapter;
  }

  private static String randomTimestamp(Random random) {
    String text = String.format("%04d-%02d-%02dT%02d:%02d:%02d", random.nextInt(10_000), random.nextInt(14),
        random.nextInt(33), random.nextInt(25), random.nextInt(61), random.nextInt(61));
    return switch (random.nextInt(4)) {
      case 0 -> text + "Z";
      case 1 -> text + String.format(".%06dZ", random.nextInt(1_000_000));
      case 2 -> text + "." + Integer.toString(random.nextInt(1_000_000_000)) + "Z";
      default -> text + "+0000";
    };
  }

  /** The value read, or the error's class and message. */
  private static String outcome(TypeAdapter<OffsetDateTime> adapter, String text) {
    try {
      OffsetDateTime value = adapter.fromJsonTree(new JsonPrimitive(text));
      return "value " + value;
    } catch (RuntimeException e) {
      return "error " + e.getClass().getName() + ": " + e.getMessage();
    }
  }
}
