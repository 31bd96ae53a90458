package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import okio.Buffer;
import okio.BufferedSource;
import okio.ForwardingSource;
import okio.Okio;
import org.junit.jupiter.api.Test;

/** The API server's per-flush gzip members, as a streaming list's watch sends them. */
class GzipMembersTest {

  @Test
  void membersOneAfterAnotherReadAsOneStream() throws IOException {
    Buffer wire = new Buffer().write(member("{\"type\":\"ADDED\"}\n")).write(member("{\"type\":\"BOOKMARK\"}\n"))
        .write(member(""));

    assertThat(Okio.buffer(new GzipMembers(wire)).readUtf8())
        .isEqualTo("{\"type\":\"ADDED\"}\n{\"type\":\"BOOKMARK\"}\n");
  }

  /** The network hands over a few bytes at a time, a member's end and the next one's start in one read. */
  @Test
  void membersArrivingAFewBytesAtATimeDecodeTheSame() throws IOException {
    StringBuilder expected = new StringBuilder();
    Buffer wire = new Buffer();
    for (int i = 0; i < 50; i++) {
      String line = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"config-" + i + "\"}}}\n";
      expected.append(line);
      wire.write(member(line));
    }
    BufferedSource trickle = Okio.buffer(new ForwardingSource(wire) {
      @Override
      public long read(Buffer sink, long byteCount) throws IOException {
        return super.read(sink, Math.min(byteCount, 7));
      }
    });

    assertThat(Okio.buffer(new GzipMembers(trickle)).readUtf8()).isEqualTo(expected.toString());
  }

  @Test
  void aMemberCutOffIsAnErrorNotTheEnd() throws IOException {
    byte[] whole = member("{\"type\":\"ADDED\"}\n");
    Buffer wire = new Buffer().write(whole, 0, whole.length - 5);

    assertThatThrownBy(() -> Okio.buffer(new GzipMembers(wire)).readUtf8()).isInstanceOf(EOFException.class);
  }

  private static byte[] member(String text) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      gzip.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }
}
