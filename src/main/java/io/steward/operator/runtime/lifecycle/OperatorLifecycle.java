package io.steward.operator.runtime.lifecycle;

import io.steward.operator.runtime.cache.Informers;
import io.steward.operator.runtime.client.OperatorClients;
import io.steward.operator.runtime.controller.ManagedController;
import io.steward.operator.runtime.election.LeaderElection;
import io.steward.operator.runtime.election.LeaderLease;
import io.steward.operator.runtime.election.Leadership;
import io.steward.operator.runtime.election.LeaseTerm;
import io.steward.operator.runtime.election.WriteFence;
import io.steward.operator.runtime.sharding.BucketOwnership;
import io.steward.operator.runtime.support.Daemons;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the operator: informers on every replica (a warm standby), the controller's workers only on
 * the leader, or in sharded mode on every replica for the buckets it owns ({@link BucketOwnership}).
 * A graceful stop (SIGTERM) takes no more work, ends the term, waits for the writes already sent and
 * releases the Lease, so a standby takes over at once ({@link #handOver}); without leader election
 * it lets running reconciles finish. A lost term ends the process non-zero within {@link #EXIT_BOUND},
 * its writes already refused by the {@link WriteFence}, so the pod restarts as a clean candidate
 * (client-java's elector never campaigns again).
 */
public final class OperatorLifecycle implements SmartLifecycle, LeaderElection.Listener {
  private static final Logger log = LoggerFactory.getLogger(OperatorLifecycle.class);
  /** A replica whose term is over is gone within this, as kube-controller-manager is. */
  static final Duration EXIT_BOUND = Duration.ofMillis(900);
  private static final List<String> INTERRUPT_NOISE = List.of("io.kubernetes.client.informer.cache.Controller",
      "io.kubernetes.client.informer.cache.ProcessorListener");

  private final Informers informers;
  private final ManagedController<?> controller;
  private final Leadership leadership;
  private final Settings settings;
  private final OperatorClients clients;
  private final LeaseTerm term;
  private final WriteFence fence;
  private final LeadershipLostHandler onLeadershipLost;

  private volatile boolean running;
  private volatile boolean stopping;
  private volatile boolean lost;
  private volatile Thread controllerThread;
  private volatile LeaderElection election;
  private final BucketOwnership sharding;
  private final ScheduledExecutorService resync;
  /** Completes when the stop begins: whatever waits for the caches stops waiting then. */
  private final CompletableFuture<Void> stopRequested = new CompletableFuture<>();

  /**
   * How the operator runs: with leader election on {@code leaderLease} (null: off, a single replica),
   * the local fence on or (tests only) off, a resync period, and how long a stop waits.
   */
  public record Settings(LeaderLease leaderLease, boolean localGuard, Duration resyncPeriod,
      Duration shutdownTimeout) {}

  public OperatorLifecycle(Informers informers, ManagedController<?> controller, Leadership leadership,
      Settings settings, OperatorClients clients, LeaseTerm term, WriteFence fence,
      LeadershipLostHandler onLeadershipLost) {
    this(informers, controller, leadership, settings, clients, term, fence, onLeadershipLost, null);
  }

  /** @param sharding the bucket ownership of sharded mode; null for a single leader (or none) */
  public OperatorLifecycle(Informers informers, ManagedController<?> controller, Leadership leadership,
      Settings settings, OperatorClients clients, LeaseTerm term, WriteFence fence,
      LeadershipLostHandler onLeadershipLost, BucketOwnership sharding) {
    this.sharding = sharding;
    this.informers = informers;
    this.controller = controller;
    this.resync = Daemons.scheduler(controller.name() + "-resync");
    this.leadership = leadership;
    this.settings = settings;
    this.clients = clients;
    this.term = term;
    this.fence = fence;
    this.onLeadershipLost = onLeadershipLost;
  }

  @Override
  public synchronized void start() {
    informers.start();
    LeaderLease lease = settings.leaderLease();
    if (sharding != null) {
      log.info("{} runs sharded: it works on the buckets it owns", leadership.identity());
      sharding.start();
      startController();
    } else if (lease == null) {
      log.info("Leader election is off: {} reconciles on its own", leadership.identity());
      startedLeading();
    } else {
      election = new LeaderElection(lease, leadership.identity(), clients, term, leadership::observedLeader,
          leadership::holderChanged, this);
      election.start(settings.localGuard());
      log.info("{} campaigns for Lease {}/{}", leadership.identity(), lease.namespace(), lease.name());
    }
    long period = settings.resyncPeriod().toMillis();
    resync.scheduleAtFixedRate(this::resyncAll, period, period, TimeUnit.MILLISECONDS);
    running = true;
  }

  /**
   * The safety net: every resync period the leader reconciles every cached object once (see
   * {@link ManagedController#resync}). Events, not this, are what normally wake the controller.
   */
  private void resyncAll() {
    log.debug("Resync: leading={}, {} objects cached", leadership.isLeading(), controller.reconciled().size());
    if ((leadership.isLeading() || sharding != null) && !stopping) {
      controller.resync(); // sharded: the gate drops what is not this replica's
    }
  }

  /** Called by the elector, or by the campaign that took a free Lease first; the second call is a no-op. */
  @Override
  public synchronized void startedLeading() {
    if (leadership.isLeading() || stopping || lost) {
      return;
    }
    LeaderLease lease = settings.leaderLease();
    if (lease == null) {
      log.info("{} leads", leadership.identity());
    } else {
      log.info("{} leads (Lease {}/{})", leadership.identity(), lease.namespace(), lease.name());
    }
    leadership.startedLeading();
    startController();
  }

  @Override
  public void lost(String why) {
    lost = true;
    leadership.stoppedLeading();
    log.error("{} lost its leadership term ({}); writes are refused from now on, running reconciles are "
        + "abandoned, and the process exits so that a clean one campaigns again", leadership.identity(), why);
    controller.controller().shutdown();
    Thread halt = new Thread(() -> {
      sleep(EXIT_BOUND.toMillis());
      Runtime.getRuntime().halt(1);
    }, "leadership-lost-halt");
    halt.setDaemon(true);
    halt.start();
    new Thread(onLeadershipLost::leadershipLost, "leadership-lost-exit").start();
  }

  private void startController() {
    controllerThread = new Thread(() -> {
      // The controller gives up after its ready timeout; wait here for however long the caches need.
      try {
        CompletableFuture.anyOf(informers.synced(), stopRequested).get();
      } catch (InterruptedException e) {
        return;
      } catch (ExecutionException e) {
        throw new IllegalStateException(e);
      }
      if (stopping || lost) {
        return;
      }
      try {
        controller.controller().run();
      } catch (RejectedExecutionException e) {
        if (!stopping && !lost) {
          throw e;
        }
        // Shut down between the check and the start of its workers: nothing to run.
      }
    }, controller.name() + "-controller");
    controllerThread.start();
  }

  private void stopController() {
    controller.controller().shutdown();
    try {
      int running = controller.inFlight().awaitFinished(settings.shutdownTimeout());
      if (running > 0) {
        log.warn("{} reconciles still running after {}; stopping anyway", running, settings.shutdownTimeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Graceful stop of a leader-elected replica: take no more work, end the term (every later write is
   * refused), wait only for the writes already on their way, then release the Lease. Nothing of this
   * replica's lands after the release, and a standby watching the Lease takes over at once. Running
   * reconciles end at their next write; the next leader redoes them (a pass is idempotent).
   */
  private void handOver() {
    controller.controller().shutdown();
    election.endTerm();
    try {
      if (!fence.awaitWritesAnswered(settings.shutdownTimeout())) {
        log.warn("Writes still unanswered after {}; releasing the Lease anyway", settings.shutdownTimeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    election.release();
  }

  @Override
  public synchronized void stop() {
    if (!running) {
      return;
    }
    stopping = true;
    stopRequested.complete(null);
    resync.shutdownNow();
    if (sharding != null) {
      controller.controller().shutdown();
      sharding.stop(settings.shutdownTimeout());
    } else if (lost) {
      election.abandon();
    } else if (election != null) {
      handOver();
    } else {
      stopController();
    }
    leadership.stoppedLeading();
    // Stopping informers interrupts their threads, which client-java logs at ERROR; expected here.
    LoggingSystem logging = LoggingSystem.get(OperatorLifecycle.class.getClassLoader());
    for (String logger : INTERRUPT_NOISE) {
      logging.setLogLevel(logger, LogLevel.OFF);
    }
    informers.stop();
    join(controllerThread, Duration.ofSeconds(5));
    running = false;
    log.info("{} stopped", leadership.identity());
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Liveness: the elector campaigns or renews, and the leader's controller runs. */
  public boolean isAlive() {
    if (!running || stopping || lost) {
      return true; // starting or shutting down is not a reason to be restarted
    }
    boolean electorAlive = (election == null || election.isAlive()) && (sharding == null || sharding.isAlive());
    boolean controllerAlive = (!leadership.isLeading() && sharding == null)
        || (controllerThread != null && controllerThread.isAlive());
    return electorAlive && controllerAlive;
  }

  /** The election, or null when leader election is off. */
  public LeaderElection election() {
    return election;
  }

  private static void join(Thread thread, Duration timeout) {
    if (thread != null) {
      try {
        thread.join(timeout.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
