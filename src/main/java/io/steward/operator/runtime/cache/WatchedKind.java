package io.steward.operator.runtime.cache;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A kind of object the runtime watches: its model classes, where the API serves it, and which of its
 * objects to watch. Everything the runtime needs to list, watch and write one kind, so it needs no
 * class of its own per kind.
 *
 * @param group the API group, empty for the core group
 * @param labelSelector what to watch of the kind; null for every object
 * @param watchBookmarks whether to ask for watch bookmarks (off for a kind whose bookmark objects the
 *     client's models cannot parse)
 */
public record WatchedKind<T extends KubernetesObject, L extends KubernetesListObject>(Class<T> type,
    Class<L> listType, String group, String version, String plural, String kind, String labelSelector,
    boolean watchBookmarks) {

  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The same kind, watching only what also matches {@code requirement} (a label selector term). */
  public WatchedKind<T, L> alsoSelecting(String requirement) {
    String combined = labelSelector == null || labelSelector.isEmpty() ? requirement : labelSelector + "," + requirement;
    return new WatchedKind<>(type, listType, group, version, plural, kind, combined, watchBookmarks);
  }

  /** Whether an owner reference names an object of this kind. */
  public boolean isKindOf(String referenceApiVersion, String referenceKind) {
    return kind.equals(referenceKind) && referenceApiVersion != null
        && (group.isEmpty() ? referenceApiVersion.indexOf('/') < 0 : referenceApiVersion.startsWith(group + "/"));
  }

  /** client-java's generic API for reads and writes of this kind. */
  public GenericKubernetesApi<T, L> api(ApiClient client) {
    return new GenericKubernetesApi<>(type, listType, group, version, plural, client);
  }

  /**
   * A GET of this kind's collection in {@code namespace} ({@link Informers#ALL_NAMESPACES}: in all of
   * them) with its label selector and {@code query} (null values left out), built as client-java's
   * generated APIs build theirs: one request shape for every kind.
   */
  okhttp3.Call call(ApiClient client, String namespace, Map<String, Object> query) throws ApiException {
    String path = (group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version)
        + (namespace.equals(Informers.ALL_NAMESPACES) ? "" : "/namespaces/" + client.escapeString(namespace))
        + "/" + plural;
    List<Pair> pairs = new ArrayList<>(client.parameterToPair("labelSelector", labelSelector));
    query.forEach((name, value) -> pairs.addAll(client.parameterToPair(name, value)));
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", client.selectHeaderAccept(new String[] {"application/json", "application/json;stream=watch"}));
    return buildGet(client, path, pairs, headers);
  }

  private static okhttp3.Call buildGet(ApiClient client, String path, List<Pair> query, Map<String, String> headers)
      throws ApiException {
    return client.buildCall(client.getBasePath(), path, "GET", query, new ArrayList<>(), null, headers,
        new HashMap<>(), new HashMap<>(), new String[] {"BearerToken"}, null);
  }
}
