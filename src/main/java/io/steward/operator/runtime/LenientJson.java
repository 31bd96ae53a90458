package io.steward.operator.runtime;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.TypeAdapter;
import com.google.gson.TypeAdapterFactory;
import com.google.gson.reflect.TypeToken;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
import io.gsonfire.GsonFireBuilder;
import io.kubernetes.client.gson.V1MetadataExclusionStrategy;
import io.kubernetes.client.gson.V1StatusPreProcessor;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Status;
import java.io.IOException;
import java.lang.reflect.Type;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * Makes client-java's JSON decoding tolerate fields its models do not know.
 *
 * <p>client-java's generated models each register a type adapter factory that checks every JSON
 * object against the model's own field list (and its required fields) and throws on anything else.
 * A newer API server sends fields an older client never heard of (a Pod-spec field behind a feature
 * gate, set by some other client): one such object makes every list of its informer fail, and the
 * informer goes blind to all objects of that type. Kubernetes' own clients ignore unknown fields
 * when decoding; this installs a Gson that does the same: client-java's own settings and date and
 * byte adapters, without the validating model factories, so Gson's reflective adapters decode the
 * known fields and skip the rest.
 *
 * <p>The Gson is static in client-java, shared by every {@link ApiClient} of the JVM. Writes never
 * send a decoded model back whole (see OwnedObjectSync), so a field the models drop on decoding is
 * never removed from the server.
 */
public final class LenientJson {
  /** The adapters client-java's {@code JSON} registers besides the model factories. */
  private static final List<Type> BASIC_TYPES = List.of(java.util.Date.class, java.sql.Date.class,
      OffsetDateTime.class, LocalDate.class, byte[].class);

  private LenientJson() {}

  /** Installs the lenient Gson for {@code client} (and, client-java's Gson being static, for all). */
  public static synchronized void install(ApiClient client) {
    Gson current = JSON.getGson();
    if (isLenient(current)) {
      return;
    }
    JSON.setGson(create(current));
    if (client.getJSON().getGson() != JSON.getGson()) {
      throw new IllegalStateException("client-java's ApiClient no longer shares the static Gson: decoding stays strict");
    }
  }

  /**
   * A Gson built as client-java builds its own, minus the validating model factories, and reading
   * {@code metadata.managedFields} (client-java skips them both ways): Steward reads its own entry
   * to know which fields it set. They are still never sent, so a read-modify-write cannot send stale
   * ones back (the API server would take them as given). Short strings that recur share one
   * instance (see {@link RecurringStrings}); timestamps in the API server's own shape are read
   * without a {@code DateTimeFormatter} (see {@link ApiServerTimestamps}).
   */
  static Gson create(Gson strict) {
    GsonBuilder builder = new GsonFireBuilder().registerPreProcessor(V1Status.class, new V1StatusPreProcessor())
        .createGsonBuilder()
        .addSerializationExclusionStrategy(new V1MetadataExclusionStrategy());
    for (Type type : BASIC_TYPES) {
      builder.registerTypeAdapter(type, strict.getAdapter(TypeToken.get(type)));
    }
    // Registered after client-java's, so it takes precedence.
    builder.registerTypeAdapter(OffsetDateTime.class,
        new ApiServerTimestamps(strict.getAdapter(OffsetDateTime.class)));
    return builder.registerTypeAdapter(String.class, new RecurringStrings())
        .registerTypeAdapterFactory(Marker.INSTANCE).create();
  }

  static boolean isLenient(Gson gson) {
    return gson.getAdapter(Marker.class) == Marker.ADAPTER;
  }

  /** Recognises an installed lenient Gson, so that installing twice is harmless. */
  private static final class Marker implements TypeAdapterFactory {
    static final Marker INSTANCE = new Marker();
    static final TypeAdapter<Marker> ADAPTER = new TypeAdapter<>() {
      @Override
      public void write(JsonWriter out, Marker value) throws IOException {
        out.nullValue();
      }

      @Override
      public Marker read(JsonReader in) throws IOException {
        in.skipValue();
        return null;
      }
    };

    @Override
    @SuppressWarnings("unchecked")
    public <T> TypeAdapter<T> create(Gson gson, TypeToken<T> type) {
      return type.getRawType() == Marker.class ? (TypeAdapter<T>) ADAPTER : null;
    }
  }
}
