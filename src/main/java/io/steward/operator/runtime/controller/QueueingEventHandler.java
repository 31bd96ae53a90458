package io.steward.operator.runtime.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.informer.ResourceEventHandler;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * Turns one informer's events into work-queue requests with controller-runtime's priorities (its
 * default since v0.23): what only replays state Steward has most likely handled goes to the queue's
 * low-priority lane, so that a change someone just made is not queued behind it.
 *
 * <ul>
 *   <li>Low: the add of an object created before the informer that delivers it began watching (its
 *       initial list; the client-java informer does not say which adds are), and an update whose
 *       resourceVersion is unchanged (a re-list replaying the store). In sharded mode a bucket's
 *       informer starts when the bucket is taken, so the list it replays then is low priority too,
 *       and the changes that wait in the bucket are not queued behind it.
 *   <li>Normal: everything else, which is what someone changed: new objects, updates that matter,
 *       deletes.
 * </ul>
 */
final class QueueingEventHandler<T extends KubernetesObject> implements ResourceEventHandler<T> {
  private final InstrumentedWorkQueue queue;
  private final Function<T, Request> requestFor;
  private final BiPredicate<T, T> updateMatters;
  private final Function<? super T, OffsetDateTime> watchingSince;

  /**
   * @param requestFor the request an object wakes; null to ignore the object
   * @param updateMatters which updates that change the resourceVersion need a pass
   * @param watchingSince when Steward began watching: objects created before are the initial list
   */
  QueueingEventHandler(InstrumentedWorkQueue queue, Function<T, Request> requestFor, BiPredicate<T, T> updateMatters,
      OffsetDateTime watchingSince) {
    this(queue, requestFor, updateMatters, object -> watchingSince);
  }

  /**
   * @param watchingSince when the informer that delivers an object began watching: objects created
   *     before are its initial list
   */
  QueueingEventHandler(InstrumentedWorkQueue queue, Function<T, Request> requestFor, BiPredicate<T, T> updateMatters,
      Function<? super T, OffsetDateTime> watchingSince) {
    this.queue = queue;
    this.requestFor = requestFor;
    this.updateMatters = updateMatters;
    this.watchingSince = watchingSince;
  }

  @Override
  public void onAdd(T object) {
    OffsetDateTime created = object.getMetadata().getCreationTimestamp();
    enqueue(object, created != null && created.isBefore(watchingSince.apply(object)));
  }

  @Override
  public void onUpdate(T before, T after) {
    boolean replayed = Objects.equals(before.getMetadata().getResourceVersion(),
        after.getMetadata().getResourceVersion());
    if (replayed || updateMatters.test(before, after)) {
      enqueue(after, replayed);
    }
  }

  @Override
  public void onDelete(T object, boolean finalStateUnknown) {
    enqueue(object, false);
  }

  private void enqueue(T object, boolean lowPriority) {
    Request request = requestFor.apply(object);
    if (request == null) {
      return;
    }
    if (lowPriority) {
      queue.addLowPriority(request);
    } else {
      queue.add(request);
    }
  }
}
