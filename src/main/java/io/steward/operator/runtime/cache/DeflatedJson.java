package io.steward.operator.runtime.cache;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.Deflater;
import java.util.zip.InflaterInputStream;

/** JSON text, deflated: how the informer caches keep a managedFields entry's {@code fieldsV1}. */
final class DeflatedJson {
  private final byte[] bytes;

  private DeflatedJson(byte[] bytes) {
    this.bytes = bytes;
  }

  static DeflatedJson of(String text) {
    Deflater deflater = new Deflater(Deflater.BEST_SPEED);
    try {
      deflater.setInput(text.getBytes(StandardCharsets.UTF_8));
      deflater.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() / 4 + 16);
      byte[] buffer = new byte[4096];
      while (!deflater.finished()) {
        out.write(buffer, 0, deflater.deflate(buffer));
      }
      return new DeflatedJson(out.toByteArray());
    } finally {
      deflater.end();
    }
  }

  String text() {
    try (InputStream in = new InflaterInputStream(new ByteArrayInputStream(bytes))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("inflating a cached fieldsV1", e);
    }
  }

  @Override
  public String toString() {
    return text();
  }
}
