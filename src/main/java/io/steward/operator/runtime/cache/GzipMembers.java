package io.steward.operator.runtime.cache;

import java.io.EOFException;
import java.io.IOException;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import okio.Buffer;
import okio.BufferedSource;
import okio.Source;
import okio.Timeout;

/**
 * A gzip stream of several members, one after another, decoded as one, as Go's gzip reader does.
 * The API server (1.37, WatchListCompression) compresses a streaming list's watch one member per
 * flush; OkHttp's transparent gzip reads one member and fails on the next ("gzip finished without
 * exhaust"). Each member's header is read when its first byte arrives, so a watch between events
 * simply waits. Integrity is the transport's (TLS); the members' CRCs are not checked.
 */
final class GzipMembers implements Source {
  private static final int FHCRC = 2;
  private static final int FEXTRA = 4;
  private static final int FNAME = 8;
  private static final int FCOMMENT = 16;

  private final BufferedSource compressed;
  /** Bytes read from {@code compressed} and not yet decoded: the inflater's leftovers come back here. */
  private Buffer input = new Buffer();
  private final Inflater inflater = new Inflater(true);
  private final byte[] inflated = new byte[8192];
  /** What the inflater was last given, whose end it may leave unused. */
  private byte[] lastInput = new byte[0];
  private boolean inMember;

  GzipMembers(BufferedSource compressed) {
    this.compressed = compressed;
  }

  @Override
  public long read(Buffer sink, long byteCount) throws IOException {
    if (byteCount == 0) {
      return 0;
    }
    while (true) {
      if (!inMember) {
        if (!available(1)) {
          return -1;
        }
        skipHeader();
        inflater.reset();
        inMember = true;
      }
      if (inflater.needsInput()) {
        if (!available(1)) {
          throw new EOFException("gzip member cut off");
        }
        lastInput = input.readByteArray();
        inflater.setInput(lastInput);
      }
      int n;
      try {
        n = inflater.inflate(inflated, 0, (int) Math.min(inflated.length, byteCount));
      } catch (DataFormatException e) {
        throw new IOException("corrupt gzip stream", e);
      }
      if (inflater.finished()) {
        takeBackRemaining();
        need(8); // CRC-32 and size of the member, not checked
        input.skip(8);
        inMember = false;
      }
      if (n > 0) {
        sink.write(inflated, 0, n);
        return n;
      }
    }
  }

  /** The bytes the inflater was given past the member's end belong to what follows it. */
  private void takeBackRemaining() throws IOException {
    int remaining = inflater.getRemaining();
    if (remaining == 0) {
      return;
    }
    byte[] given = lastInput;
    Buffer rest = new Buffer().write(given, given.length - remaining, remaining);
    rest.writeAll(input);
    input = rest;
  }

  private void skipHeader() throws IOException {
    need(10);
    int id1 = input.readByte() & 0xff;
    int id2 = input.readByte() & 0xff;
    int method = input.readByte() & 0xff;
    int flags = input.readByte() & 0xff;
    if (id1 != 0x1f || id2 != 0x8b || method != 8) {
      throw new IOException("not a gzip member");
    }
    input.skip(6); // time, extra flags, operating system
    if ((flags & FEXTRA) != 0) {
      need(2);
      int length = Short.reverseBytes(input.readShort()) & 0xffff;
      need(length);
      input.skip(length);
    }
    if ((flags & FNAME) != 0) {
      skipZeroTerminated();
    }
    if ((flags & FCOMMENT) != 0) {
      skipZeroTerminated();
    }
    if ((flags & FHCRC) != 0) {
      need(2);
      input.skip(2);
    }
  }

  private void skipZeroTerminated() throws IOException {
    while (true) {
      need(1);
      if (input.readByte() == 0) {
        return;
      }
    }
  }

  private void need(long bytes) throws IOException {
    if (!available(bytes)) {
      throw new EOFException("gzip stream cut off");
    }
  }

  /** Whether {@code bytes} can be had, waiting for them; false at the end of the stream. */
  private boolean available(long bytes) throws IOException {
    while (input.size() < bytes) {
      if (compressed.read(input, 8192) == -1) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Timeout timeout() {
    return compressed.timeout();
  }

  @Override
  public void close() throws IOException {
    inflater.end();
    compressed.close();
  }
}
