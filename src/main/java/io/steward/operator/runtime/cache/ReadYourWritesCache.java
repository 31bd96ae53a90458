package io.steward.operator.runtime.cache;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.steward.operator.runtime.support.LogSafe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An informer cache that also holds Steward's own successful writes until the informer has caught up
 * with them (as Java Operator SDK's temporary resource cache does). Without it the pass right after a
 * write reads the older object: it re-creates what it just created, or patches a status with a stale
 * resourceVersion, and each costs a refused request (409) and a retry. And the watch event that
 * echoes a write would wake a pass with nothing left to do; {@link #skippingEchoes} drops it, also
 * when it arrives before the write's response does (see {@link #writing}).
 *
 * <p>Only equality of resourceVersions is used, never their order (they are opaque). A write is
 * recorded with the version it replaced, which Steward read from this same cache; while the informer
 * still holds that version (or nothing, for a create or an object moving between informers), or one
 * of Steward's own earlier results that this write built on, the informer is behind and the write is
 * the fresher view. Once the informer
 * shows any other version, it is at least as new, and the record is dropped. A record the informer
 * has not confirmed within {@link #CONFIRM_WITHIN} is dropped too (see there), and the runtime wakes
 * a pass for what it stood in for.
 */
public final class ReadYourWritesCache<T extends KubernetesObject> implements InformerCache<T> {
  private static final Logger log = LoggerFactory.getLogger(ReadYourWritesCache.class);

  /**
   * A write (or a chain of writes, each built on the one before): the resourceVersion the chain
   * replaced (null: it created the object), the versions of its earlier results, and its latest result
   * (null: deleted).
   */
  private record Write<T extends KubernetesObject>(String replaced, Set<String> superseded, T result, T subject, long recordedAt) {
    boolean isAhead(String informerVersion) {
      if (informerVersion == null) {
        // No informer shows the object: behind a write that created it, or one that left it existing
        // while it moves between informers (a deletion by others would have ended the record).
        return replaced == null || result != null;
      }
      return informerVersion.equals(replaced) || superseded.contains(informerVersion);
    }

    /** Whether {@code version} is one this chain produced and the object still exists at: a result, earlier or latest. */
    boolean producedExisting(String version) {
      return version != null && result != null && (version.equals(version(result)) || superseded.contains(version));
    }
  }

  /**
   * How long a write may wait for its informer. Normally the watch shows it within moments; one it
   * never shows was overtaken by what the watch missed while it was cut (an object created, then
   * deleted before the re-list): held longer, such a record would stand in for an object that no
   * longer exists, forever. Dropping a record early costs at most a refused write (every write is
   * conditional on the version it read), never a wrong one.
   */
  public static final Duration CONFIRM_WITHIN = Duration.ofSeconds(30);

  private final InformerCache<T> informer;
  private final Duration confirmWithin;
  private final LongSupplier nanoClock;
  private final ConcurrentMap<String, Write<T>> writes = new ConcurrentHashMap<>();
  /** Keys with a write on its way, and the events for them that came meanwhile, in order. */
  private final Map<String, InFlight> inFlight = new HashMap<>();
  private final List<Consumer<T>> unconfirmedListeners = new CopyOnWriteArrayList<>();

  public ReadYourWritesCache(InformerCache<T> informer) {
    this(informer, CONFIRM_WITHIN, System::nanoTime);
  }

  ReadYourWritesCache(InformerCache<T> informer, Duration confirmWithin, LongSupplier nanoClock) {
    this.informer = informer;
    this.confirmWithin = confirmWithin;
    this.nanoClock = nanoClock;
  }

  @Override
  public T get(String namespace, String name) {
    T cached = informer.get(namespace, name);
    Write<T> write = writes.get(key(namespace, name));
    if (write == null || !write.isAhead(version(cached))) {
      return cached;
    }
    if (isUnconfirmed(write)) {
      writes.remove(key(namespace, name), write);
      return cached;
    }
    return write.result();
  }

  /** Called with the object of every write dropped unconfirmed, so that its owner can look again. */
  public void onUnconfirmed(Consumer<T> listener) {
    unconfirmedListeners.add(listener);
  }

  /**
   * Drops the writes the informer has not shown within {@link #CONFIRM_WITHIN} and tells the
   * listeners about each; returns how many. The runtime calls it periodically: what a dropped record
   * stood in for may have been deleted unseen, and nothing else would wake a pass for it.
   */
  public int dropUnconfirmed() {
    int dropped = 0;
    for (Map.Entry<String, Write<T>> entry : writes.entrySet()) {
      Write<T> write = entry.getValue();
      if (isUnconfirmed(write) && writes.remove(entry.getKey(), write)) {
        dropped++;
        unconfirmedListeners.forEach(listener -> listener.accept(write.subject()));
      }
    }
    return dropped;
  }

  private boolean isUnconfirmed(Write<T> write) {
    return nanoClock.getAsLong() - write.recordedAt() > confirmWithin.toNanos();
  }

  /** A write request; it records its success with {@link #written} before it returns. */
  @FunctionalInterface
  public interface WriteRequest<R, E extends Exception> {
    R send() throws E;
  }

  /** The events that came for a key while writes of it were on their way. */
  private static final class InFlight {
    int writes;
    final List<Runnable> events = new ArrayList<>();
  }

  /**
   * Runs {@code request}, a write of the object {@code namespace/name} that records its success
   * with {@link #written} before it returns. The watch may deliver the write's own event before its
   * response has arrived and been recorded; judged then, the echo would look like news and wake
   * another pass. So the events for that object wait while the write is on its way and are judged
   * once it is recorded (or failed), in the order they came.
   */
  public <R, E extends Exception> R writing(String namespace, String name, WriteRequest<R, E> request) throws E {
    String key = key(namespace, name);
    synchronized (inFlight) {
      inFlight.computeIfAbsent(key, k -> new InFlight()).writes++;
    }
    try {
      return request.send();
    } finally {
      List<Runnable> waited = List.of();
      synchronized (inFlight) {
        InFlight writes = inFlight.get(key);
        if (--writes.writes == 0) {
          inFlight.remove(key);
          waited = writes.events;
        }
      }
      for (Runnable event : waited) {
        try {
          event.run();
        } catch (RuntimeException e) {
          // As the informer would for its own handler: the other events must still be judged.
          log.warn("Event handler failed on an event held during a write: {}", LogSafe.describe(e));
        }
      }
    }
  }

  /**
   * Sends {@code request}, a write of {@code object} through client-java's generic API, as
   * {@link #writing} does, and records its result if it succeeded, as replacing {@code replaced}
   * (null: the write created the object).
   */
  public KubernetesApiResponse<T> write(T object, T replaced, Supplier<KubernetesApiResponse<T>> request) {
    return writing(object.getMetadata().getNamespace(), object.getMetadata().getName(), () -> {
      KubernetesApiResponse<T> response = request.get();
      if (response.isSuccess()) {
        written(replaced, response.getObject());
      }
      return response;
    });
  }

  /** Whether {@code event} for {@code object} waits for a write in flight (see {@link #writing}). */
  private boolean waitsForWrite(T object, Runnable event) {
    String key = key(object.getMetadata().getNamespace(), object.getMetadata().getName());
    synchronized (inFlight) {
      InFlight writes = inFlight.get(key);
      if (writes == null) {
        return false;
      }
      writes.events.add(event);
      return true;
    }
  }

  private boolean writeInFlight(String key) {
    synchronized (inFlight) {
      return inFlight.containsKey(key);
    }
  }

  /** A write succeeded: {@code before} is the object it replaced (null: created), {@code after} the result (null: deleted). */
  public void written(T before, T after) {
    T object = after != null ? after : before;
    String namespace = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    String key = key(namespace, name);
    Write<T> previous = writes.get(key);
    Write<T> write;
    if (previous != null && previous.result() != null && before != null
        && Objects.equals(version(before), version(previous.result()))) {
      Set<String> superseded = new HashSet<>(previous.superseded());
      superseded.add(version(before));
      // Built on our own last write.
      write = new Write<>(previous.replaced(), Set.copyOf(superseded), after, object, nanoClock.getAsLong());
    } else {
      write = new Write<>(version(before), Set.of(), after, object, nanoClock.getAsLong());
    }
    writes.put(key, write);
    // The informer may have applied the write before it was recorded: then forget it right away,
    // unless its event waits to be judged (see writing). While no informer shows the object, it is
    // moving from one informer to another, or its informer lags: the record stays.
    T cached = informer.get(namespace, name);
    if (cached != null && !write.isAhead(version(cached)) && !writeInFlight(key)) {
      writes.remove(key, write);
    }
  }

  /**
   * Writes not yet seen by the informer: zero whenever the operator is quiet, or records are leaking
   * (exported as {@code steward_cache_unconfirmed_writes}).
   */
  public int pending() {
    return writes.size();
  }

  /**
   * Called for every informer event, after the informer's store has applied it: forgets the write the
   * event supersedes, and tells whether the event is only the echo of that write.
   */
  boolean observed(T object, boolean deleted) {
    String key = key(object.getMetadata().getNamespace(), object.getMetadata().getName());
    Write<T> write = writes.get(key);
    if (write == null) {
      return false;
    }
    String version = version(object);
    if (!deleted && Objects.equals(version, write.replaced())) {
      return false; // older than the write: a re-list replaying the store
    }
    if (!deleted && version != null && write.superseded().contains(version)) {
      return true; // one of our own earlier results; the latest is still to come
    }
    writes.remove(key, write);
    return deleted ? write.result() == null : write.result() != null && Objects.equals(version, version(write.result()));
  }

  /**
   * Wraps an event handler: every event first goes through {@link #observed}, and the echoes of
   * Steward's own writes do not reach {@code handler} (the pass that wrote already saw the result).
   */
  public ResourceEventHandler<T> skippingEchoes(ResourceEventHandler<T> handler) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        if (!waitsForWrite(object, () -> onAdd(object)) && !observed(object, false)) {
          handler.onAdd(object);
        }
      }

      @Override
      public void onUpdate(T before, T after) {
        if (!waitsForWrite(after, () -> onUpdate(before, after)) && !observed(after, false)) {
          handler.onUpdate(before, after);
        }
      }

      @Override
      public void onDelete(T object, boolean finalStateUnknown) {
        if (waitsForWrite(object, () -> onDelete(object, finalStateUnknown))) {
          return;
        }
        if (!finalStateUnknown && (movedToAnotherInformer(object) || leftSelectorThroughOwnWrite(object))) {
          return;
        }
        if (!observed(object, true)) {
          handler.onDelete(object, finalStateUnknown);
        }
      }
    };
  }

  /**
   * Whether the object a delete event names is still in the cache: several informers feed it (sharded
   * mode), and another one already shows the object, which left only this informer's selector. An
   * informer removes an object before it tells of the delete, so after a real deletion none has it.
   */
  private boolean movedToAnotherInformer(T object) {
    return informer.get(object.getMetadata().getNamespace(), object.getMetadata().getName()) != null;
  }

  /**
   * Whether a delete event is an object leaving one informer's label selector because of Steward's
   * own write (a watch reports that as a delete at the version that made it leave; a real deletion
   * has a version of its own). The object still exists and another informer shows it next (sharded
   * mode: a new WebApp moving into its bucket's informer once labelled), so it is no news, and the
   * write stays recorded for that informer to confirm.
   */
  private boolean leftSelectorThroughOwnWrite(T object) {
    Write<T> write = writes.get(key(object.getMetadata().getNamespace(), object.getMetadata().getName()));
    return write != null && write.producedExisting(version(object));
  }

  private static String version(KubernetesObject object) {
    return object == null ? null : object.getMetadata().getResourceVersion();
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
