package io.steward.operator.runtime.election;

import io.kubernetes.client.extended.leaderelection.LeaderElectionRecord;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Lease;
import io.steward.operator.runtime.support.Daemons;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the leader Lease and takes it the moment it is free, where client-java's elector would
 * notice only at its next poll (up to about three retry periods later): when the holder released it
 * (a graceful stop), or when its record stood still for a lease duration by this replica's
 * monotonic clock, counted from when its last renewal arrived on the watch. The takeover is an ordinary optimistic write through the same
 * {@link FencedLeaseLock}; after it, this replica leads at once, and the campaign keeps renewing
 * until the elector, which confirms on its next poll, takes over the renewals. A take by the elector
 * leads at once too: client-java's elector reports its own success only after sleeping a retry
 * period, which would leave a replica that took a free Lease at start idle for that long.
 *
 * <p>The watched Lease is also what {@code /actuator/leader} shows (no request per probe), and its
 * holder changes are reported as they are seen, for the hand-over metric.
 */
public final class LeaseCampaign {
  private static final Logger log = LoggerFactory.getLogger(LeaseCampaign.class);

  private final FencedLeaseLock lock;
  private final Duration leaseDuration;
  private final Duration retryPeriod;
  private final Runnable onTakeover;
  private final BiConsumer<String, String> holderChanged;
  private final SharedInformerFactory factory;
  private final SharedIndexInformer<V1Lease> informer;
  private final ScheduledExecutorService executor = Daemons.scheduler("lease-campaign");

  private volatile ScheduledFuture<?> atExpiry;
  private volatile boolean leading;
  private volatile boolean electorConfirmed;
  private volatile boolean stopped;

  public LeaseCampaign(FencedLeaseLock lock, ApiClient watches, String namespace, String name,
      Duration leaseDuration, Duration retryPeriod, Runnable onTakeover, BiConsumer<String, String> holderChanged) {
    this.lock = lock;
    this.holderChanged = holderChanged;
    this.leaseDuration = leaseDuration;
    this.retryPeriod = retryPeriod;
    this.onTakeover = onTakeover;
    lock.whenTaken(() -> {
      try {
        executor.execute(this::taken);
      } catch (RejectedExecutionException e) {
        // Stopped.
      }
    });
    this.factory = new SharedInformerFactory(watches);
    this.informer = Leases.informer(factory, watches, namespace, "metadata.name=" + name, null, "Leader Lease");
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(V1Lease lease) {
        changed(lease);
      }

      @Override
      public void onUpdate(V1Lease before, V1Lease after) {
        String was = Leases.holder(before);
        String now = Leases.holder(after);
        if (!now.isEmpty() && !now.equals(was)) {
          holderChanged.accept(was, now);
        }
        changed(after);
      }

      @Override
      public void onDelete(V1Lease lease, boolean finalStateUnknown) {
        // the elector creates it again
      }
    });
  }

  public void start() {
    factory.startAllRegisteredInformers();
    long period = retryPeriod.toMillis();
    executor.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
  }

  public void stop() {
    stopped = true;
    executor.shutdownNow();
    factory.stopAllRegisteredInformers();
  }

  /** The elector reached leadership itself: renewals are its job from now on. */
  public void electorConfirmed() {
    electorConfirmed = true;
  }

  /** The Lease as last seen on the watch; null before the first list. */
  public V1Lease lease() {
    List<V1Lease> leases = informer.getIndexer().list();
    return leases.isEmpty() ? null : leases.get(0);
  }

  private void changed(V1Lease lease) {
    lock.sawOnWatch(lease);
    if (leading || electorConfirmed || stopped) {
      return;
    }
    if (Leases.holder(lease).isEmpty()) {
      executor.execute(this::tryTakeOver); // released: take it now, not at the next poll
      return;
    }
    // Held: look again the moment it would expire if its holder stays silent, not at the next tick.
    ScheduledFuture<?> previous = atExpiry;
    if (previous != null) {
      previous.cancel(false);
    }
    OptionalLong untilExpiry = lock.nanosUntilExpiry();
    if (untilExpiry.isPresent()) {
      atExpiry = executor.schedule(this::tryTakeOver, untilExpiry.getAsLong() + LeaseExpiry.LOOK_PAST.toNanos(),
          TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Every retry period: take an expired Lease; or, after taking one, renew it until the elector
   * confirms, whenever no renewal has succeeded for a retry period (the elector's own attempts may
   * keep failing under load: it abandons any that outlasts its retry period).
   */
  private void tick() {
    if (electorConfirmed) {
      return;
    }
    if (!leading) {
      tryTakeOver();
    } else if (lock.term().remaining().compareTo(lock.term().length().minus(retryPeriod)) <= 0) {
      renew();
    }
  }

  private void tryTakeOver() {
    if (leading || electorConfirmed || stopped) {
      return;
    }
    try {
      LeaderElectionRecord current = lock.get();
      if (!lock.mayTakeOver()) {
        return;
      }
      boolean mine = lock.identity().equals(current.getHolderIdentity());
      Date now = new Date();
      LeaderElectionRecord record = new LeaderElectionRecord(lock.identity(), (int) leaseDuration.toSeconds(),
          mine && current.getAcquireTime() != null ? current.getAcquireTime() : now, now,
          mine ? current.getLeaderTransitions() : current.getLeaderTransitions() + 1);
      lock.update(record); // a take granted a term leads through taken()
    } catch (ApiException e) {
      log.debug("Lease {} not readable now (HTTP {}); the elector keeps campaigning", lock.describe(), e.getCode());
    }
  }

  /** A take by the campaign or the elector was granted a term: this replica leads now. */
  private void taken() {
    if (leading || electorConfirmed || stopped) {
      return;
    }
    leading = true;
    log.info("{} took the Lease {}", lock.identity(), lock.describe());
    onTakeover.run();
  }

  private void renew() {
    try {
      LeaderElectionRecord current = lock.get();
      if (!lock.identity().equals(current.getHolderIdentity())) {
        return; // lost: the term runs out and the process exits
      }
      lock.update(new LeaderElectionRecord(lock.identity(), (int) leaseDuration.toSeconds(),
          current.getAcquireTime(), new Date(), current.getLeaderTransitions()));
    } catch (ApiException e) {
      log.debug("Lease {} renewal by the campaign failed (HTTP {})", lock.describe(), e.getCode());
    }
  }
}
