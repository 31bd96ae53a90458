package io.steward.operator.runtime.client;

import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;

/**
 * Decodes JSON strings so that short ones that recur share one instance. The informer caches hold
 * every watched object for as long as it exists, and most of their strings are the same few values
 * over and over: label keys and values, the namespace, kinds and API versions, condition types,
 * reasons and messages, the defaults the API server fills in. Decoded as they are, each object has
 * its own copies.
 *
 * <p>A fixed table, indexed by hash, keeps the last string seen for each slot: a recurring value
 * finds its earlier instance there; a unique one (a UID, a resourceVersion) only replaces a slot. The
 * table's size bounds what it keeps alive, and a lookup costs a hash and a comparison, with no lock
 * (a string is immutable, so a racing write of a slot can only cost a missed share). Long strings
 * are left alone: they are rarely repeated, and the table should not keep large ones alive.
 */
final class RecurringStrings extends TypeAdapter<String> {
  /** Slots in the table; a power of two. */
  static final int SLOTS = 1 << 14;
  /** Longer strings are decoded as they are. */
  static final int MAX_LENGTH = 96;

  private final String[] slots = new String[SLOTS];

  /** The instance of {@code value} to keep: an equal one decoded before, if the table still has it. */
  String canonical(String value) {
    if (value.length() > MAX_LENGTH) {
      return value;
    }
    int hash = value.hashCode();
    int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
    String seen = slots[slot];
    if (value.equals(seen)) {
      return seen;
    }
    slots[slot] = value;
    return value;
  }

  @Override
  public String read(JsonReader in) throws IOException {
    JsonToken token = in.peek();
    if (token == JsonToken.NULL) {
      in.nextNull();
      return null;
    }
    // As Gson's own String adapter: a boolean where a string is expected is read as its text.
    return canonical(token == JsonToken.BOOLEAN ? Boolean.toString(in.nextBoolean()) : in.nextString());
  }

  @Override
  public void write(JsonWriter out, String value) throws IOException {
    out.value(value);
  }
}
