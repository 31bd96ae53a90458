package io.steward.operator.runtime.cache;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.Map;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Drops the ERROR lines client-java logs when an informer is stopped on purpose: its threads are
 * interrupted, and each says so as an error. In sharded mode every bucket that moves stops its
 * informers, so each move would log a dozen errors that are none. Only those messages from those
 * loggers are dropped: the same loggers' other errors (an event handler that failed) still show.
 */
final class InformerStopLogFilter extends TurboFilter {
  /** Logger name → the start of the message it logs when its thread is interrupted. */
  private static final Map<String, String> INTERRUPTED = Map.of(
      "io.kubernetes.client.informer.cache.ProcessorListener", "processor interrupted",
      "io.kubernetes.client.informer.cache.Controller", "DefaultController#processLoop get interrupted");

  /** Installs the filter once, if Logback is the logging backend (Spring Boot's default). */
  static synchronized void install() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context
        && context.getTurboFilterList().stream().noneMatch(InformerStopLogFilter.class::isInstance)) {
      InformerStopLogFilter filter = new InformerStopLogFilter();
      filter.start();
      context.addTurboFilter(filter);
    }
  }

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level != Level.ERROR || format == null) {
      return FilterReply.NEUTRAL;
    }
    String interrupted = INTERRUPTED.get(logger.getName());
    return interrupted != null && format.startsWith(interrupted) ? FilterReply.DENY : FilterReply.NEUTRAL;
  }
}
