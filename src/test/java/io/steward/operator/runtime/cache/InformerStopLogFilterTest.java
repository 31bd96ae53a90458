package io.steward.operator.runtime.cache;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class InformerStopLogFilterTest {
  private final Logger processor = (Logger) LoggerFactory.getLogger("io.kubernetes.client.informer.cache.ProcessorListener");
  private final Logger controller = (Logger) LoggerFactory.getLogger("io.kubernetes.client.informer.cache.Controller");
  private final ListAppender<ILoggingEvent> seen = new ListAppender<>();

  InformerStopLogFilterTest() {
    InformerStopLogFilter.install();
    InformerStopLogFilter.install();
    seen.start();
    processor.addAppender(seen);
    controller.addAppender(seen);
  }

  @AfterEach
  void detach() {
    processor.detachAppender(seen);
    controller.detachAppender(seen);
  }

  @Test
  void theLinesOfAnInformerStoppedOnPurposeAreDropped() {
    processor.error("processor interrupted: {}", (Object) null);
    controller.error("DefaultController#processLoop get interrupted {}", (Object) null);
    assertThat(seen.list).isEmpty();
  }

  @Test
  void theSameLoggersOtherErrorsStillShow() {
    processor.error("failed invoking informer event handler", new IllegalStateException("a handler failed"));
    controller.error("list and watch failed");
    assertThat(seen.list).extracting(ILoggingEvent::getMessage)
        .containsExactly("failed invoking informer event handler", "list and watch failed");
  }

  @Test
  void anotherLoggersLineWithTheSameWordsStillShows() {
    Logger other = (Logger) LoggerFactory.getLogger("io.steward.operator.runtime.cache.Informers");
    other.addAppender(seen);
    try {
      other.error("processor interrupted: {}", "by someone else");
    } finally {
      other.detachAppender(seen);
    }
    assertThat(seen.list).hasSize(1);
  }
}
