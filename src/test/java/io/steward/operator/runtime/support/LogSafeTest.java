package io.steward.operator.runtime.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.models.V1PodSpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class LogSafeTest {
  private static final String SECRET = "s3cr3t-hunter2";

  @Test
  void clientJavaModelErrorsLoseTheJsonTheyEmbed() {
    // What client-java 25 throws for a field it does not know (a newer server's PodSpec): its message ends
    // with the whole JSON it refused, env values included.
    String podSpec = "{\"containers\":[{\"name\":\"app\",\"image\":\"nginx\",\"env\":[{\"name\":\"TOKEN\",\"value\":\""
        + SECRET + "\"}]}],\"workloadRef\":{}}";
    Throwable refused = catchThrowable(() -> V1PodSpec.validateJsonElement(JsonParser.parseString(podSpec)));
    assertThat(refused).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(SECRET);

    Exception wrapped = new IllegalStateException("decoding the Deployment failed", refused);
    assertThat(LogSafe.describe(wrapped)).doesNotContain(SECRET)
        .contains("IllegalStateException: decoding the Deployment failed", "caused by java.lang.IllegalArgumentException",
            "is not defined in the");
    StringWriter trace = new StringWriter();
    LogSafe.redacted(wrapped).printStackTrace(new PrintWriter(trace));
    assertThat(trace.toString()).doesNotContain(SECRET).contains("V1PodSpec.validateJsonElement", "Caused by:");
  }

  @Test
  void quotedValuesInServerMessagesAreDropped() {
    String message = "Deployment.apps \"shop\" is invalid: spec.template.spec.containers[0].env[0].value: Invalid value: \""
        + SECRET + "\": must be short";
    assertThat(LogSafe.redact(message)).doesNotContain(SECRET)
        .startsWith("Deployment.apps \"…\" is invalid: spec.template.spec.containers")
        .endsWith(": Invalid value: \"…\": must be short");
    assertThat(LogSafe.redact("For input string: '" + SECRET + "'")).isEqualTo("For input string: \"…\"");
    assertThat(LogSafe.redact("got {\"value\":\"" + SECRET + "\"}")).isEqualTo("got …");
    assertThat(LogSafe.redact("got [{\"value\":1}] and [\"" + SECRET + "\"]")).isEqualTo("got …");
    assertThat(LogSafe.redact("x".repeat(1000))).hasSizeLessThan(400);
    assertThat(LogSafe.redact(null)).isNull();
  }
}
