package io.steward.operator.runtime.election;

import io.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.kubernetes.client.extended.leaderelection.LeaderElector;
import io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.steward.operator.runtime.client.OperatorClients;
import io.steward.operator.runtime.support.Daemons;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a Lease, with a term that ends on time. client-java's {@link LeaderElector}
 * campaigns and renews, through a {@link FencedLeaseLock} that keeps this replica's
 * {@link LeaseTerm} by the monotonic clock; a {@link LeaseCampaign} takes a released or expired
 * Lease at once; a watchdog declares the term lost the moment it runs out, whatever the elector
 * thinks (after a pause the elector would wait a fresh renew deadline before giving up).
 */
public final class LeaderElection {
  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  /** What the lifecycle does when this replica starts leading, or loses its term. */
  public interface Listener {
    void startedLeading();

    void lost(String why);
  }

  private final LeaseTerm term;
  private final FencedLeaseLock lock;
  private final LeaderElector elector;
  private final LeaseCampaign campaign;
  private final Listener listener;
  private final Consumer<String> observedLeader;
  private final AtomicBoolean lostOnce = new AtomicBoolean();
  private final ScheduledExecutorService watchdog = Daemons.scheduler("lease-term-watchdog");
  private volatile Thread electorThread;
  private volatile boolean stopping;

  public LeaderElection(LeaderLease lease, String identity, OperatorClients clients, LeaseTerm term,
      Consumer<String> observedLeader, BiConsumer<String, String> holderChanged, Listener listener) {
    this.term = term;
    String namespace = lease.namespace();
    LeaseTimings timings = lease.timings();
    RivalLeases buckets = new RivalLeases(RivalLeases.Source.labelled(new CoordinationV1Api(clients.requests()),
        namespace, Leases.SHARD_LEASE_LABEL + "=bucket"), timings.leaseDuration());
    this.lock = new FencedLeaseLock(() -> new LeaseLock(namespace, lease.name(), identity, clients.requests()),
        term, timings.leaseDuration(), buckets);
    this.elector = new LeaderElector(new LeaderElectionConfig(lock, timings.leaseDuration(),
        timings.renewDeadline(), timings.retryPeriod()),
        error -> log.warn("Leader election: {}", error.toString()));
    this.campaign = new LeaseCampaign(lock, clients.watches(), namespace, lease.name(),
        timings.leaseDuration(), timings.retryPeriod(), listener::startedLeading, holderChanged);
    this.listener = listener;
    this.observedLeader = observedLeader;
  }

  /**
   * @param watchTerm false only with the local guard off (tests of what fencing prevents): then,
   *     as before fencing, only the elector's own timers end leadership, and its wall clock alone
   *     decides when another replica's Lease has expired
   */
  public void start(boolean watchTerm) {
    campaign.start();
    electorThread = new Thread(() -> elector.run(() -> {
      campaign.electorConfirmed();
      listener.startedLeading();
    }, () -> lost("the elector could not renew the Lease within the renew deadline"), observedLeader::accept),
        "leader-elector");
    electorThread.start();
    if (!watchTerm) {
      lock.withoutTakeoverVeto();
      return;
    }
    new TermWatchdog(term, () -> lost("its term ran out: no successful Lease renewal was sent within "
        + term.length().toMillis() + " ms"), watchdog).start();
  }

  /** Graceful stop, first step: end the term on purpose (the watchdog must not take it for a loss). */
  public void endTerm() {
    stopping = true;
    watchdog.shutdownNow();
    term.end();
  }

  /** Graceful stop, last step: release the Lease so that a standby takes over at once. */
  public void release() {
    endTerm();
    campaign.stop();
    elector.close(); // writes an empty holder if the elector saw this replica hold the Lease
    lock.giveBack(); // and if only the campaign did
  }

  /** After a loss: stop campaigning and renewing, release nothing (the Lease is someone else's or soon will be). */
  public void abandon() {
    stopping = true;
    term.end();
    watchdog.shutdownNow();
    campaign.stop();
    if (electorThread != null) {
      electorThread.interrupt();
    }
  }

  /** The Lease as last seen on the watch; null before the first list. */
  public V1Lease lease() {
    return campaign.lease();
  }

  public LeaseTerm term() {
    return term;
  }

  public boolean isAlive() {
    return electorThread != null && electorThread.isAlive();
  }

  private void lost(String why) {
    if (stopping || !lostOnce.compareAndSet(false, true)) {
      return;
    }
    term.end();
    listener.lost(why);
  }
}
