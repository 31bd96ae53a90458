package io.steward.operator.runtime;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * An informer cache that also holds Steward's own successful writes until the informer has caught up
 * with them (as Java Operator SDK's temporary resource cache does). Without it the pass right after a
 * write reads the older object: it re-creates what it just created, or patches a status with a stale
 * resourceVersion, and each costs a refused request (409) and a retry. And the watch event that
 * echoes a write would wake a pass with nothing left to do; {@link #skippingEchoes} drops it, also
 * when it arrives before the write's response does (see {@link #creating}).
 *
 * <p>Only equality of resourceVersions is used, never their order (they are opaque). A write is
 * recorded with the version it replaced, which Steward read from this same cache; while the informer
 * still holds that version (or, for a create, nothing), or one of Steward's own earlier results that
 * this write built on, the informer is behind and the write is the fresher view. Once the informer
 * shows any other version, it is at least as new, and the record is dropped.
 */
public final class ReadYourWritesCache<T extends KubernetesObject> implements InformerCache<T> {

  /**
   * A write (or a chain of writes, each built on the one before): the resourceVersion the chain
   * replaced (null: it created the object), the versions of its earlier results, and its latest result
   * (null: deleted).
   */
  private record Write<T>(String replaced, Set<String> superseded, T result) {
    boolean isAhead(String informerVersion) {
      return Objects.equals(informerVersion, replaced) || informerVersion != null && superseded.contains(informerVersion);
    }
  }

  private final InformerCache<T> informer;
  private final ConcurrentMap<String, Write<T>> writes = new ConcurrentHashMap<>();
  private final Set<String> creating = ConcurrentHashMap.newKeySet();

  public ReadYourWritesCache(InformerCache<T> informer) {
    this.informer = informer;
  }

  @Override
  public T get(String namespace, String name) {
    T cached = informer.get(namespace, name);
    Write<T> write = writes.get(key(namespace, name));
    return write != null && write.isAhead(version(cached)) ? write.result() : cached;
  }

  /**
   * Runs {@code request}, the create of {@code object}. While it is in flight, the informer's add
   * event for that name is its echo (anyone else's object of that name makes the create fail, and a
   * failed create is retried anyway), so the event need not wake another pass.
   */
  public <R> R creating(T object, Supplier<R> request) {
    String key = key(object.getMetadata().getNamespace(), object.getMetadata().getName());
    creating.add(key);
    try {
      return request.get(); // a successful create is recorded (written) before the marker goes
    } finally {
      creating.remove(key);
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
      write = new Write<>(previous.replaced(), Set.copyOf(superseded), after); // built on our own last write
    } else {
      write = new Write<>(version(before), Set.of(), after);
    }
    writes.put(key, write);
    // The informer may have applied the write before it was recorded: then forget it right away.
    if (!write.isAhead(version(informer.get(namespace, name)))) {
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
        boolean ownCreateInFlight = creating.contains(key(object.getMetadata().getNamespace(),
            object.getMetadata().getName()));
        if (!observed(object, false) && !ownCreateInFlight) {
          handler.onAdd(object);
        }
      }

      @Override
      public void onUpdate(T before, T after) {
        if (!observed(after, false)) {
          handler.onUpdate(before, after);
        }
      }

      @Override
      public void onDelete(T object, boolean finalStateUnknown) {
        if (!observed(object, true)) {
          handler.onDelete(object, finalStateUnknown);
        }
      }
    };
  }

  private static String version(KubernetesObject object) {
    return object == null ? null : object.getMetadata().getResourceVersion();
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
