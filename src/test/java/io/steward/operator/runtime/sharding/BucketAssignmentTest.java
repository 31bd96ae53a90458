package io.steward.operator.runtime.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BucketAssignmentTest {
  private static final int BUCKETS = 32;

  @Test
  void everyBucketHasOneOwnerAndLoadsDifferByAtMostOne() {
    for (int members = 1; members <= 7; members++) {
      List<String> names = members(members, "steward-7d9f8-");
      Map<Integer, String> owners = BucketAssignment.assign(BUCKETS, names);
      assertThat(owners).hasSize(BUCKETS);
      Map<String, Integer> load = loads(owners);
      assertThat(load.keySet()).as("every member gets buckets").containsExactlyInAnyOrderElementsOf(names);
      int max = Collections.max(load.values());
      int min = Collections.min(load.values());
      assertThat(max - min).as("%d members: %s", members, load).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void theSameMembersInAnyOrderGiveTheSameAnswer() {
    List<String> names = members(3, "pod-");
    List<String> reversed = new ArrayList<>(names);
    Collections.reverse(reversed);
    assertThat(BucketAssignment.assign(BUCKETS, reversed)).isEqualTo(BucketAssignment.assign(BUCKETS, names));
  }

  @Test
  void aJoiningOrLeavingMemberMovesLittleMoreThanItsShare() {
    for (int members = 1; members <= 6; members++) {
      for (String prefix : List.of("steward-7d9f8-", "p", "replica-")) {
        List<String> before = members(members, prefix);
        List<String> after = new ArrayList<>(before);
        after.add(prefix + "joined");
        int moved = moved(BucketAssignment.assign(BUCKETS, before), BucketAssignment.assign(BUCKETS, after));
        int ideal = BUCKETS / after.size();
        // A join must move at least the joiner's share; keeping loads within one of each other may
        // move as many again (plain rendezvous moves exactly the share but can leave a member with
        // half again its share of 32 buckets).
        assertThat(moved).as("%s: %d → %d members", prefix, members, after.size())
            .isBetween(ideal, 2 * ideal + 1);
        int movedBack = moved(BucketAssignment.assign(BUCKETS, after), BucketAssignment.assign(BUCKETS, before));
        assertThat(movedBack).isEqualTo(moved);
      }
    }
  }

  @Test
  void bucketsOfAMemberThatStaysMostlyStayWithIt() {
    List<String> three = members(3, "pod-");
    Map<Integer, String> before = BucketAssignment.assign(BUCKETS, three);
    Map<Integer, String> after = BucketAssignment.assign(BUCKETS, three.subList(0, 2));
    for (int bucket = 0; bucket < BUCKETS; bucket++) {
      if (!before.get(bucket).equals(three.get(2))) {
        continue;
      }
      assertThat(after.get(bucket)).isIn(three.subList(0, 2));
    }
    // the survivors keep nearly everything they had
    long kept = before.entrySet().stream().filter(e -> !e.getValue().equals(three.get(2)))
        .filter(e -> after.get(e.getKey()).equals(e.getValue())).count();
    long survivorsHad = before.values().stream().filter(owner -> !owner.equals(three.get(2))).count();
    assertThat(kept).isGreaterThanOrEqualTo(survivorsHad - 2);
  }

  @Test
  void noMembersNoOwners() {
    assertThat(BucketAssignment.assign(BUCKETS, List.of())).isEmpty();
  }

  private static int moved(Map<Integer, String> before, Map<Integer, String> after) {
    int moved = 0;
    for (int bucket = 0; bucket < BUCKETS; bucket++) {
      if (!before.get(bucket).equals(after.get(bucket))) {
        moved++;
      }
    }
    return moved;
  }

  private static Map<String, Integer> loads(Map<Integer, String> owners) {
    Map<String, Integer> load = new HashMap<>();
    owners.values().forEach(owner -> load.merge(owner, 1, Integer::sum));
    return load;
  }

  private static List<String> members(int count, String prefix) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      names.add(prefix + Integer.toString(i * 7919 + 12345, 36));
    }
    return names;
  }
}
