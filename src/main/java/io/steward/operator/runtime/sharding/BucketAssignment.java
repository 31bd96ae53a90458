package io.steward.operator.runtime.sharding;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which live member should own each bucket: rendezvous (highest random weight) hashing with a bound
 * on load. Each bucket ranks the members by a hash of (member, bucket) and goes to the first one in
 * its ranking that still has room: every member may hold floor(buckets / members), and only as many
 * members as the remainder one more, so loads differ by at most one. Plain rendezvous moves only the
 * buckets of a member that joins or leaves, but with few buckets its spread is uneven (a member can
 * get half again its share); the bound evens it out at the cost of more moves (up to about twice
 * the joiner's share; see the test). Every replica
 * computes the same answer from the same member list, so no one needs to publish it.
 */
public final class BucketAssignment {
  private BucketAssignment() {}

  /** bucket → member; empty when there are no members. */
  public static Map<Integer, String> assign(int buckets, Collection<String> members) {
    Map<Integer, String> owners = new TreeMap<>();
    if (members.isEmpty()) {
      return owners;
    }
    List<String> sorted = members.stream().distinct().sorted().toList();
    int floor = buckets / sorted.size();
    int roomForOneMore = buckets % sorted.size();
    Map<String, Integer> load = new HashMap<>();
    for (int bucket = 0; bucket < buckets; bucket++) {
      int b = bucket;
      List<String> ranking = sorted.stream()
          .sorted(Comparator.comparingLong((String member) -> weight(member, b)).reversed()).toList();
      for (String member : ranking) {
        int held = load.getOrDefault(member, 0);
        if (held < floor || (held == floor && roomForOneMore > 0)) {
          if (held == floor) {
            roomForOneMore--;
          }
          owners.put(bucket, member);
          load.put(member, held + 1);
          break;
        }
      }
    }
    return owners;
  }

  /** A well-mixed 64-bit weight; unsigned comparison is not needed, only a total order all replicas share. */
  static long weight(String member, int bucket) {
    long h = BucketHash.fnv1a64(member) ^ (bucket * 0x9e3779b97f4a7c15L);
    // splitmix64's finaliser: FNV alone leaves similar member names with correlated weights.
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    return h ^ (h >>> 31);
  }
}
