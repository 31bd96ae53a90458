package io.steward.operator.support;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Plain JSON requests to the API server, for tests that need what client-java's models cannot carry:
 * kinds newer than the models (admissionregistration.k8s.io/v1 MutatingAdmissionPolicy), fields they
 * do not know, and a field manager of the test's choosing.
 */
public final class RawApi {
  private static final MediaType JSON = MediaType.get("application/json");

  private final ApiClient client;

  public RawApi(ApiClient client) {
    this.client = client;
  }

  public JsonObject get(String path) {
    return send(new Request.Builder().url(client.getBasePath() + path).get());
  }

  public JsonObject post(String path, String json) {
    return send(new Request.Builder().url(client.getBasePath() + path).post(RequestBody.create(json, JSON)));
  }

  /** A merge patch ({@code application/merge-patch+json}), recorded under {@code fieldManager}. */
  public JsonObject mergePatch(String path, String json, String fieldManager) {
    return patch(path, json, "application/merge-patch+json", fieldManager);
  }

  /** A strategic merge patch, as kubectl sends it, recorded under {@code fieldManager}. */
  public JsonObject strategicPatch(String path, String json, String fieldManager) {
    return patch(path, json, "application/strategic-merge-patch+json", fieldManager);
  }

  public void delete(String path) {
    send(new Request.Builder().url(client.getBasePath() + path).delete());
  }

  private JsonObject patch(String path, String json, String contentType, String fieldManager) {
    return send(new Request.Builder().url(client.getBasePath() + path + "?fieldManager=" + fieldManager)
        .patch(RequestBody.create(json, MediaType.get(contentType))));
  }

  private JsonObject send(Request.Builder request) {
    try (Response response = client.getHttpClient().newCall(request.build()).execute()) {
      String body = response.body() == null ? "" : response.body().string();
      if (!response.isSuccessful()) {
        throw new IllegalStateException(response.request().method() + " " + response.request().url() + ": HTTP "
            + response.code() + " " + body);
      }
      return body.isBlank() ? new JsonObject() : JsonParser.parseString(body).getAsJsonObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
