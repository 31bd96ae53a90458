package io.steward.operator.runtime.client;

import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;

/**
 * Reads each response body whole before client-java decodes it. client-java decodes straight from
 * the socket, so a connection lost in the middle of a body reaches its callers as Gson's
 * {@code JsonSyntaxException}: a payload that cannot be parsed, which nobody retries (client-java's
 * event broadcaster drops the event with an error). Read here, the loss is the {@link IOException}
 * it is, and client-java reports it as a failed request, like a refused connection. For the client
 * of single-object requests only: informers' lists stream on the watch client.
 */
final class WholeResponseBodies implements Interceptor {
  @Override
  public Response intercept(Chain chain) throws IOException {
    Response response = chain.proceed(chain.request());
    ResponseBody body = response.body();
    Buffer whole = new Buffer();
    try (BufferedSource source = body.source()) {
      whole.writeAll(source);
    }
    return response.newBuilder().body(ResponseBody.create(whole, body.contentType(), whole.size())).build();
  }
}
