package io.steward.operator.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The receiver reads what OpenTelemetry's own OTLP exporter sends: ids, parents, names, attributes. */
class OtlpReceiverTest {

  @Test
  void decodesTheSpansTheOtlpExporterSends() {
    try (OtlpReceiver receiver = new OtlpReceiver();
        SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(OtlpHttpSpanExporter.builder()
                .setEndpoint(receiver.endpoint()).build()))
            .build()) {
      Tracer tracer = provider.get("test");
      Span parent = tracer.spanBuilder("parent").setAttribute("key", "ns/shop")
          .setAttribute(AttributeKey.longKey("generation"), 3L).startSpan();
      try (Scope scope = parent.makeCurrent()) {
        tracer.spanBuilder("child").setAttribute(AttributeKey.booleanKey("ok"), true).startSpan()
            .setStatus(StatusCode.ERROR).end();
      }
      parent.end();
      provider.forceFlush().join(10, TimeUnit.SECONDS);

      assertThat(receiver.contentTypes()).allMatch(type -> type.equals("application/x-protobuf"));
      OtlpReceiver.Span p = receiver.spans().stream().filter(s -> s.name().equals("parent")).findFirst().orElseThrow();
      OtlpReceiver.Span c = receiver.spans().stream().filter(s -> s.name().equals("child")).findFirst().orElseThrow();
      assertThat(p.traceId()).hasSize(32).isEqualTo(parent.getSpanContext().getTraceId());
      assertThat(p.spanId()).isEqualTo(parent.getSpanContext().getSpanId());
      assertThat(p.parentSpanId()).isEmpty();
      assertThat(p.attributes()).containsEntry("key", "ns/shop").containsEntry("generation", "3");
      assertThat(c.parentSpanId()).isEqualTo(p.spanId());
      assertThat(c.traceId()).isEqualTo(p.traceId());
      assertThat(c.attribute("ok")).isEqualTo("true");
      assertThat(c.statusCode()).isEqualTo(2);
      assertThat(p.resource()).containsKey("service.name");
    }
  }
}
