package io.steward.operator.runtime.controller;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.extended.event.legacy.EventBroadcaster;
import io.kubernetes.client.extended.event.legacy.EventCorrelator;
import io.kubernetes.client.extended.event.legacy.EventRecorder;
import io.kubernetes.client.extended.event.legacy.ObjectReferenceResolvingEventRecorder;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.CoreV1EventBuilder;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.util.PatchUtils;
import io.steward.operator.runtime.support.Daemons;
import io.steward.operator.runtime.support.LogSafe;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.commons.lang3.tuple.MutablePair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events as client-java's {@code LegacyEventBroadcaster} records them (its recorders, its
 * {@link EventCorrelator} aggregating repeats into a count and dropping spam, a create, or a patch of
 * the count of an Event already recorded), with a recording thread that sleeps until an Event is
 * queued: client-java's wakes every 100 ms to poll its queue for the life of the process, which is a
 * good part of what an idle operator spends. A stop records what was queued before it, best effort.
 */
public final class BlockingEventBroadcaster implements EventBroadcaster {
  private static final Logger log = LoggerFactory.getLogger(BlockingEventBroadcaster.class);
  /** Queued by {@link #shutdown}: everything before it is recorded, nothing after. */
  private static final CoreV1Event STOP = new CoreV1Event();
  private static final int TRIES_PER_EVENT = 10;

  private final BlockingQueue<CoreV1Event> pending = new LinkedBlockingQueue<>();
  private final EventCorrelator correlator = new EventCorrelator();
  private final CoreV1Api events;
  private final Duration retryDelay;
  private final Thread worker = Daemons.named("event-recorder").newThread(this::recordUntilStopped);
  private volatile boolean stopping;

  public BlockingEventBroadcaster(CoreV1Api events) {
    this(events, Duration.ofSeconds(10));
  }

  BlockingEventBroadcaster(CoreV1Api events, Duration retryDelay) {
    this.events = events;
    this.retryDelay = retryDelay;
  }

  @Override
  public EventRecorder newRecorder(V1EventSource source) {
    return new ObjectReferenceResolvingEventRecorder(pending, source);
  }

  @Override
  public void startRecording() {
    worker.start();
  }

  @Override
  public void shutdown() {
    stopping = true;
    pending.add(STOP);
  }

  /** The recording thread, for tests: it waits without a timeout while nothing is queued. */
  Thread worker() {
    return worker;
  }

  private void recordUntilStopped() {
    while (true) {
      CoreV1Event event;
      try {
        event = pending.take();
      } catch (InterruptedException e) {
        return;
      }
      if (event == STOP) {
        return;
      }
      try {
        record(event);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.warn("Event not recorded: {}", LogSafe.describe(e));
      }
    }
  }

  private void record(CoreV1Event event) throws InterruptedException {
    var correlated = correlator.correlate(event);
    if (correlated.isEmpty()) {
      return; // dropped as spam by the correlator's filter
    }
    MutablePair<CoreV1Event, V1Patch> eventAndPatch = correlated.get();
    for (int tries = 1; !send(eventAndPatch.getLeft(), eventAndPatch.getRight(), event.getCount() > 1); tries++) {
      if (tries == TRIES_PER_EVENT || stopping) {
        log.warn("Event {} on {} not recorded after {} tries", event.getReason(), describe(event), tries);
        return;
      }
      Thread.sleep(retryDelay.toMillis());
    }
  }

  /** False when it is worth trying again; the correlator learns whatever the API server stored. */
  private boolean send(CoreV1Event event, V1Patch countPatch, boolean seenBefore) {
    CoreV1Event stored = null;
    try {
      CoreV1Event created = event;
      if (seenBefore) {
        try {
          stored = patch(event, countPatch);
          return true;
        } catch (ApiException e) {
          if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
            return false;
          }
          // Gone (expired by its time to live): recorded anew, as a copy without the old version.
          created = new CoreV1EventBuilder(event).build();
          created.getMetadata().setResourceVersion(null);
        }
      }
      try {
        stored = events.createNamespacedEvent(created.getMetadata().getNamespace(), created).execute();
        return true;
      } catch (ApiException e) {
        return e.getCode() == HttpURLConnection.HTTP_CONFLICT; // recorded already
      }
    } finally {
      if (stored != null) {
        correlator.updateState(stored);
      }
    }
  }

  private CoreV1Event patch(CoreV1Event event, V1Patch countPatch) throws ApiException {
    return PatchUtils.patch(CoreV1Event.class, () -> events.patchNamespacedEvent(event.getMetadata().getName(),
        event.getMetadata().getNamespace(), countPatch).buildCall(null),
        V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, events.getApiClient());
  }

  private static String describe(CoreV1Event event) {
    var object = event.getInvolvedObject();
    return object == null ? "an unnamed object"
        : object.getKind() + " " + object.getNamespace() + "/" + object.getName();
  }
}
