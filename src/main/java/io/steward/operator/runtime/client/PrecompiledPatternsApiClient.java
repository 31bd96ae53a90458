package io.steward.operator.runtime.client;

import io.kubernetes.client.openapi.ApiClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;

/**
 * client-java's {@link ApiClient} with the regular expression it applies to every request and
 * response compiled once. The generated client asks {@link #isJsonMime} three or four times per
 * request (the Accept and Content-Type headers, the body on both ways) with {@link String#matches},
 * which compiles the pattern each time, and escapes each path parameter with
 * {@link String#replaceAll}. The answers are the generated client's.
 */
public final class PrecompiledPatternsApiClient extends ApiClient {
  /** The generated client's own pattern for a JSON media type. */
  private static final Pattern JSON_MIME =
      Pattern.compile("(?i)^(application/json|[^;/ \t]+/[^;/ \t]+[+]json)[ \t]*(;.*)?$");

  public PrecompiledPatternsApiClient() {
    super();
  }

  public PrecompiledPatternsApiClient(OkHttpClient client) {
    super(client);
  }

  @Override
  public boolean isJsonMime(String mime) {
    return mime != null && (JSON_MIME.matcher(mime).matches() || mime.equals("*/*"));
  }

  @Override
  public String escapeString(String str) {
    return URLEncoder.encode(str, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
