package io.steward.operator.runtime;

import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.kubernetes.client.extended.leaderelection.LeaderElector;
import io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.extended.controller.reconciler.Request;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the operator: informers on every replica (a warm standby), the controller's workers only on
 * the leader.
 *
 * <ul>
 *   <li>Start: informers start; the elector campaigns for the Lease (or, with leader election off,
 *       the controller starts at once). On winning, the controller waits for the caches, then works.
 *   <li>Graceful stop (SIGTERM, context close): stop taking work, let running reconciles finish
 *       (bounded by steward.shutdown-timeout), release the Lease so a standby takes over at once,
 *       stop the informers. Exit code 0.
 *   <li>Lease lost: stop work and exit non-zero, so the pod restarts clean; client-java's elector
 *       never campaigns again, and a controller whose queue was shut down cannot restart.
 * </ul>
 */
public final class OperatorLifecycle implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(OperatorLifecycle.class);
  private static final List<String> INTERRUPT_NOISE = List.of("io.kubernetes.client.informer.cache.Controller",
      "io.kubernetes.client.informer.cache.ProcessorListener");

  private final InformerCaches informers;
  private final Controller controller;
  private final InstrumentedWorkQueue queue;
  private final ControllerMetrics metrics;
  private final Leadership leadership;
  private final StewardProperties properties;
  private final ApiClient client;
  private final String leaseNamespace;
  private final LeadershipLostHandler onLeadershipLost;

  private volatile boolean running;
  private volatile boolean stopping;
  private volatile Thread electorThread;
  private volatile Thread controllerThread;
  private volatile LeaderElector elector;
  private final ScheduledExecutorService resync = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "webapp-resync");
    thread.setDaemon(true);
    return thread;
  });

  public OperatorLifecycle(InformerCaches informers, Controller controller, InstrumentedWorkQueue queue,
      ControllerMetrics metrics,
      Leadership leadership, StewardProperties properties, ApiClient client, String leaseNamespace,
      LeadershipLostHandler onLeadershipLost) {
    this.informers = informers;
    this.controller = controller;
    this.queue = queue;
    this.metrics = metrics;
    this.leadership = leadership;
    this.properties = properties;
    this.client = client;
    this.leaseNamespace = leaseNamespace;
    this.onLeadershipLost = onLeadershipLost;
  }

  @Override
  public synchronized void start() {
    informers.start();
    StewardProperties.LeaderElection election = properties.getLeaderElection();
    if (!election.isEnabled()) {
      log.info("Leader election is off: {} reconciles on its own", leadership.identity());
      leadership.startedLeading();
      startController();
    } else {
      LeaseLock lock = new LeaseLock(leaseNamespace, election.getLeaseName(), leadership.identity(), client);
      elector = new LeaderElector(new LeaderElectionConfig(lock, election.getLeaseDuration(),
          election.getRenewDeadline(), election.getRetryPeriod()),
          error -> log.warn("Leader election: {}", error.toString()));
      electorThread = new Thread(() -> elector.run(this::startedLeading, this::stoppedLeading,
          leadership::observedLeader), "leader-elector");
      electorThread.start();
      log.info("{} campaigns for Lease {}/{}", leadership.identity(), leaseNamespace, election.getLeaseName());
    }
    long period = properties.getResyncPeriod().toMillis();
    resync.scheduleAtFixedRate(this::resyncAll, period, period, TimeUnit.MILLISECONDS);
    running = true;
  }

  /**
   * The safety net: every resync period the leader reconciles every cached WebApp once, which is a
   * no-op for converged ones. (Events, not this, are what normally wake the controller.) At low
   * priority, so that a change made meanwhile does not wait behind thousands of these.
   */
  private void resyncAll() {
    log.debug("Resync: leading={}, {} WebApps cached", leadership.isLeading(), informers.webAppCount());
    if (leadership.isLeading() && !stopping) {
      informers.allWebApps().forEach(webApp -> queue.addLowPriority(
          new Request(webApp.getMetadata().getNamespace(), webApp.getMetadata().getName())));
    }
  }

  private void startedLeading() {
    log.info("{} leads (Lease {}/{})", leadership.identity(), leaseNamespace,
        properties.getLeaderElection().getLeaseName());
    leadership.startedLeading();
    startController();
  }

  private void stoppedLeading() {
    leadership.stoppedLeading();
    if (stopping) {
      return;
    }
    log.error("{} lost the Lease; stopping work and exiting so that a clean process campaigns again",
        leadership.identity());
    stopController();
    Thread exit = new Thread(onLeadershipLost::leadershipLost, "leadership-lost-exit");
    exit.start();
  }

  private void startController() {
    controllerThread = new Thread(() -> {
      // The controller gives up after its ready timeout; wait here for however long the caches need.
      while (!informers.hasSynced() && !stopping) {
        sleep(100);
      }
      if (!stopping) {
        controller.run();
      }
    }, "webapp-controller");
    controllerThread.start();
  }

  private void stopController() {
    controller.shutdown();
    long deadline = System.nanoTime() + properties.getShutdownTimeout().toNanos();
    while (metrics.activeWorkers() > 0 && System.nanoTime() < deadline) {
      sleep(20);
    }
    if (metrics.activeWorkers() > 0) {
      log.warn("{} reconciles still running after {}; stopping anyway", metrics.activeWorkers(),
          properties.getShutdownTimeout());
    }
  }

  @Override
  public synchronized void stop() {
    if (!running) {
      return;
    }
    stopping = true;
    resync.shutdownNow();
    stopController();
    if (elector != null) {
      elector.close(); // releases the Lease if held, so a standby need not wait for it to expire
    }
    leadership.stoppedLeading();
    // Stopping informers interrupts their threads, which client-java logs at ERROR; expected here.
    LoggingSystem logging = LoggingSystem.get(OperatorLifecycle.class.getClassLoader());
    for (String logger : INTERRUPT_NOISE) {
      logging.setLogLevel(logger, LogLevel.OFF);
    }
    informers.stop();
    join(electorThread, Duration.ofSeconds(5));
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
    if (!running || stopping) {
      return true; // starting or shutting down is not a reason to be restarted
    }
    boolean electorAlive = elector == null || (electorThread != null && electorThread.isAlive());
    boolean controllerAlive = !leadership.isLeading() || (controllerThread != null && controllerThread.isAlive());
    return electorAlive && controllerAlive;
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
