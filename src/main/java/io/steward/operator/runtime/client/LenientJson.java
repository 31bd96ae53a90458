package io.steward.operator.runtime.client;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.TypeAdapter;
import com.google.gson.reflect.TypeToken;
import io.gsonfire.GsonFireBuilder;
import io.kubernetes.client.gson.V1MetadataExclusionStrategy;
import io.kubernetes.client.gson.V1StatusPreProcessor;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Status;
import java.lang.reflect.Field;
import java.lang.reflect.Type;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;

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
  /**
   * The adapters client-java's {@code JSON} registers besides the model factories, by type, with the
   * static field it keeps each in.
   */
  private static final Map<Type, String> BASIC_TYPES = Map.of(java.util.Date.class, "dateTypeAdapter",
      java.sql.Date.class, "sqlDateTypeAdapter", OffsetDateTime.class, "offsetDateTimeTypeAdapter",
      LocalDate.class, "localDateTypeAdapter", byte[].class, "byteArrayAdapter");

  /** The lenient Gsons made here, to recognise one without asking it (or a strict one) anything. */
  private static final Set<Gson> CREATED = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

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
    Map<Type, TypeAdapter<?>> basic = basicAdapters(strict);
    basic.forEach(builder::registerTypeAdapter);
    // Registered after client-java's, so it takes precedence.
    @SuppressWarnings("unchecked")
    TypeAdapter<OffsetDateTime> timestamps = (TypeAdapter<OffsetDateTime>) basic.get(OffsetDateTime.class);
    builder.registerTypeAdapter(OffsetDateTime.class, new ApiServerTimestamps(timestamps));
    Gson lenient = builder.registerTypeAdapter(String.class, new RecurringStrings()).create();
    CREATED.add(lenient);
    return lenient;
  }

  static boolean isLenient(Gson gson) {
    return CREATED.contains(gson);
  }

  /**
   * client-java's adapters for the basic types, the very instances its static Gson holds. Asking that
   * Gson for them ({@code getAdapter}) would consult every model factory first, each of which loads
   * its model class to compare it with the type asked for: most of client-java's models, which
   * Steward never decodes, loaded and kept by every process. So they are read from the fields
   * client-java keeps them in, and only asked for should those fields ever be gone.
   */
  static Map<Type, TypeAdapter<?>> basicAdapters(Gson strict) {
    Map<Type, TypeAdapter<?>> adapters = new LinkedHashMap<>();
    BASIC_TYPES.forEach((type, field) -> adapters.put(type,
        clientJavasField(field).orElseGet(() -> strict.getAdapter(TypeToken.get(type)))));
    return adapters;
  }

  /** The type adapter in client-java's {@code JSON.<name>}, if there is one. */
  static Optional<TypeAdapter<?>> clientJavasField(String name) {
    try {
      Field field = JSON.class.getDeclaredField(name);
      field.setAccessible(true);
      return field.get(null) instanceof TypeAdapter<?> adapter ? Optional.of(adapter) : Optional.empty();
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
