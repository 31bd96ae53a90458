package io.steward.operator.runtime.election;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Judges Lease expiry by this replica's monotonic clock, as client-go's elector does: a record has
 * expired once this replica has seen it unchanged for a whole lease duration, counted from the answer
 * of the read that first found it in its current state. The writer's timestamps are never used: its
 * clock may differ from this one, and a wall clock may step.
 *
 * <p>Shared by everything that decides whether another replica's Lease still counts: the leader
 * election's take-over, the sharded mode's members and buckets, and the check on the other mode's
 * Leases.
 */
public final class LeaseExpiry {
  /** How long past an expiry instant to look again, so that the look finds the Lease expired. */
  public static final Duration LOOK_PAST = Duration.ofMillis(5);

  private record Sighting(Object state, long since) {}

  private final Duration leaseDuration;
  private final LongSupplier nanoClock;
  private final Map<String, Sighting> sightings = new HashMap<>();

  public LeaseExpiry(Duration leaseDuration, LongSupplier nanoClock) {
    this.leaseDuration = leaseDuration;
    this.nanoClock = nanoClock;
  }

  /** How long a Lease left unchanged stands. */
  public Duration leaseDuration() {
    return leaseDuration;
  }

  /** Now, by the clock this judges by. */
  public long now() {
    return nanoClock.getAsLong();
  }

  /**
   * A read answered at {@code answeredAt} found Lease {@code name} in {@code state} (anything that
   * changes with every write: its resourceVersion, or its record's fields). A new state is counted
   * from the answer, not from the read's send: the write that made it may have been sent after the
   * read was, and its writer's term counts from that send, so only the answer is sure to come later.
   */
  public synchronized void saw(String name, Object state, long answeredAt) {
    Sighting before = sightings.get(name);
    if (before == null || !Objects.equals(before.state(), state)) {
      sightings.put(name, new Sighting(state, answeredAt));
    }
  }

  /** Forgets the Leases that a complete read no longer found. */
  public synchronized void keepOnly(Collection<String> names) {
    sightings.keySet().retainAll(names);
  }

  /** Whether Lease {@code name} has been seen unchanged for a whole lease duration (false if never seen). */
  public boolean expired(String name) {
    return unchangedFor(name, leaseDuration);
  }

  /** Whether Lease {@code name} has been seen in {@code state}, unchanged, for a whole lease duration. */
  public synchronized boolean expired(String name, Object state) {
    Sighting seen = sightings.get(name);
    return seen != null && Objects.equals(seen.state(), state) && unchangedFor(name, leaseDuration);
  }

  /** Whether Lease {@code name} has been seen unchanged for at least {@code quiet} (false if never seen). */
  public synchronized boolean unchangedFor(String name, Duration quiet) {
    Sighting seen = sightings.get(name);
    return seen != null && nanoClock.getAsLong() - seen.since() >= quiet.toNanos();
  }

  /**
   * How long until the first of {@code names} that has not expired yet will have, if none of them
   * changes meanwhile; empty when every one has expired or was never seen. A replica waiting to take
   * over a silent holder's Lease can look again at that instant rather than at its next round.
   */
  public synchronized OptionalLong nanosUntilFirstExpiry(Collection<String> names) {
    long now = nanoClock.getAsLong();
    return names.stream().map(sightings::get).filter(Objects::nonNull)
        .mapToLong(seen -> seen.since() + leaseDuration.toNanos() - now).filter(left -> left > 0).min();
  }
}
