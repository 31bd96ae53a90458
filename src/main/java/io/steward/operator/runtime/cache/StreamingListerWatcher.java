package io.steward.operator.runtime.cache;

import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.lang.reflect.Type;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Okio;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An informer's lists as client-go's WatchList makes them: one watch with {@code sendInitialEvents},
 * whose initial ADDED events, ended by a bookmark, are the list, and which then goes on as the watch
 * the reflector asks for next. The API server streams the objects from its watch cache one by one
 * instead of building the whole list in one response, compressed if it compresses watch lists, and a
 * restart costs one request per informer.
 * Where the API server does not stream lists (it refuses the request: before Kubernetes 1.27, or with
 * its WatchList feature gate off, as in 1.27 to 1.31 and 1.33 by default), every informer of the same
 * {@link Mode} falls back, once, to paginated lists.
 */
final class StreamingListerWatcher<T extends KubernetesObject, L extends KubernetesListObject>
    implements ListerWatcher<T, L> {
  private static final Logger log = LoggerFactory.getLogger(StreamingListerWatcher.class);
  /** The annotation of the bookmark that ends the initial events. */
  static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";
  /** Objects per page of a paginated list, as client-go's pager asks for. */
  static final int PAGE = 500;
  /** How long the API server keeps a watch open at least, as client-java's reflector asks. */
  private static final int WATCH_SECONDS = 300;

  /** Whether the informers of one API server stream their lists; they learn it together. */
  static final class Mode {
    private final AtomicBoolean streams;

    Mode(boolean streams) {
      this.streams = new AtomicBoolean(streams);
    }

    boolean streams() {
      return streams.get();
    }

    /** The API server refused a streaming list: from now on, paginated lists. */
    void refused(String what, ApiException e) {
      if (streams.compareAndSet(true, false)) {
        log.info("The API server does not stream lists ({} refused with HTTP {}); informers list page by page",
            what, e.getCode());
      }
    }
  }

  /** A watch whose initial events made the last list, kept for the watch the reflector asks for next. */
  private record Continued<T>(String resourceVersion, Watchable<T> watch) {}

  private final ApiClient client;
  private final WatchedKind<T, L> kind;
  private final String namespace;
  private final ListWatchHealth health;
  private final Mode mode;
  private final Type eventType;
  private final AtomicReference<Continued<T>> continued = new AtomicReference<>();
  /** The client for streaming watches, whose compressed responses come as many gzip members. */
  private final OkHttpClient gunzipping;

  StreamingListerWatcher(ApiClient client, WatchedKind<T, L> kind, String namespace, ListWatchHealth health,
      Mode mode) {
    this.client = client;
    this.kind = kind;
    this.namespace = namespace;
    this.health = health;
    this.mode = mode;
    this.eventType = TypeToken.getParameterized(Watch.Response.class, kind.type()).getType();
    this.gunzipping = client.getHttpClient().newBuilder().addInterceptor(StreamingListerWatcher::gunzipped).build();
  }

  /**
   * A response to a request that asked for gzip itself (OkHttp then leaves the body as it came),
   * decoded member by member ({@link GzipMembers}).
   */
  private static Response gunzipped(Interceptor.Chain chain) throws IOException {
    Response response = chain.proceed(chain.request());
    ResponseBody body = response.body();
    if (body == null || !"gzip".equalsIgnoreCase(response.header("Content-Encoding"))) {
      return response;
    }
    return response.newBuilder().removeHeader("Content-Encoding").removeHeader("Content-Length")
        .body(ResponseBody.create(Okio.buffer(new GzipMembers(body.source())), body.contentType(), -1)).build();
  }

  @Override
  public L list(CallGeneratorParams params) throws ApiException {
    closeContinued();
    L list = null;
    if (mode.streams()) {
      try {
        list = streamed(params.resourceVersion);
      } catch (ApiException e) {
        if (e.getCode() != HttpURLConnection.HTTP_BAD_REQUEST && e.getCode() != 422) {
          throw e;
        }
        mode.refused("a watch of " + kind.plural() + " with sendInitialEvents", e);
      }
    }
    if (list == null) {
      list = paginated();
    }
    health.listed();
    return list;
  }

  @Override
  public Watchable<T> watch(CallGeneratorParams params) throws ApiException {
    Continued<T> kept = continued.getAndSet(null);
    if (kept != null) {
      if (Objects.equals(kept.resourceVersion(), params.resourceVersion)) {
        return kept.watch();
      }
      close(kept.watch());
    }
    Map<String, Object> query = new LinkedHashMap<>();
    if (kind.watchBookmarks()) {
      query.put("allowWatchBookmarks", true);
    }
    query.put("resourceVersion", params.resourceVersion);
    query.put("timeoutSeconds", params.timeoutSeconds);
    query.put("watch", true);
    return watchOf(kind.call(client, namespace, query));
  }

  /**
   * The initial events of a watch from {@code resourceVersion} ("0", the reflector's first list, asks
   * for none in particular; the stream is then as fresh as a consistent read), as a list at the
   * resourceVersion of the bookmark that ends them.
   */
  private L streamed(String resourceVersion) throws ApiException {
    Map<String, Object> query = new LinkedHashMap<>();
    query.put("allowWatchBookmarks", true);
    query.put("resourceVersion", resourceVersion == null || resourceVersion.equals("0") ? null : resourceVersion);
    query.put("resourceVersionMatch", "NotOlderThan");
    query.put("sendInitialEvents", true);
    query.put("timeoutSeconds", WATCH_SECONDS + ThreadLocalRandom.current().nextInt(WATCH_SECONDS));
    query.put("watch", true);
    Watchable<T> watch = Watch.createWatch(client, gunzipping.newCall(kind.call(client, namespace, query).request()
        .newBuilder().header("Accept-Encoding", "gzip").build()), eventType);
    Map<String, T> objects = new LinkedHashMap<>();
    try {
      while (watch.hasNext()) {
        Watch.Response<T> event = watch.next();
        switch (event.type) {
          case "ADDED", "MODIFIED" -> objects.put(key(event.object), event.object);
          case "DELETED" -> objects.remove(key(event.object));
          case "BOOKMARK" -> {
            Map<String, String> annotations = event.object.getMetadata().getAnnotations();
            if (annotations != null && "true".equals(annotations.get(INITIAL_EVENTS_END))) {
              String at = event.object.getMetadata().getResourceVersion();
              continued.set(new Continued<>(at, watch));
              watch = null;
              return listOf(new ArrayList<>(objects.values()), at);
            }
          }
          case "ERROR" -> throw new ApiException(event.status == null || event.status.getCode() == null ? 500
              : event.status.getCode(), event.status == null ? "an ERROR event" : event.status.getMessage());
          default -> { }
        }
      }
      throw new ApiException("the API server ended the initial events of " + kind.plural()
          + " before the bookmark that ends them");
    } catch (RuntimeException e) {
      throw new ApiException(e);
    } finally {
      if (watch != null) {
        close(watch);
      }
    }
  }

  /** A consistent list, {@link #PAGE} objects a request. */
  private L paginated() throws ApiException {
    List<T> items = new ArrayList<>();
    String resourceVersion = null;
    String next = null;
    while (true) {
      Map<String, Object> query = new LinkedHashMap<>();
      query.put("continue", next);
      query.put("limit", PAGE);
      L page;
      try {
        page = client.<L>execute(kind.call(client, namespace, query), kind.listType()).getData();
      } catch (ApiException e) {
        if (e.getCode() != HttpURLConnection.HTTP_GONE || next == null) {
          throw e;
        }
        // The continue token expired: start the list again.
        items.clear();
        resourceVersion = null;
        next = null;
        continue;
      }
      if (resourceVersion == null) {
        resourceVersion = page.getMetadata().getResourceVersion();
      }
      @SuppressWarnings("unchecked")
      List<T> pageItems = (List<T>) page.getItems();
      items.addAll(pageItems);
      next = page.getMetadata().getContinue();
      if (next == null || next.isEmpty()) {
        break;
      }
    }
    return listOf(items, resourceVersion);
  }

  private L listOf(List<T> items, String resourceVersion) {
    L list = client.getJSON().deserialize("{\"metadata\":{\"resourceVersion\":"
        + client.getJSON().serialize(resourceVersion) + "},\"items\":[]}", kind.listType());
    @SuppressWarnings("unchecked")
    List<T> listed = (List<T>) list.getItems();
    listed.addAll(items);
    return list;
  }

  private Watchable<T> watchOf(Call call) throws ApiException {
    return Watch.createWatch(client, client.getHttpClient().newCall(call.request()), eventType);
  }

  private void closeContinued() {
    Continued<T> kept = continued.getAndSet(null);
    if (kept != null) {
      close(kept.watch());
    }
  }

  private static void close(Watchable<?> watch) {
    try {
      watch.close();
    } catch (IOException e) {
      log.debug("Closing a watch failed: {}", e.toString());
    }
  }

  private static String key(KubernetesObject object) {
    return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
  }
}
