package io.steward.operator.reliability;

import java.util.List;

/** Nearest-rank percentiles of measured latencies, as the reliability report gives them. */
final class Percentiles {
  private Percentiles() {}

  /** The nearest-rank {@code percentile} of {@code values}; 0 for none. */
  static long of(List<Long> values, int percentile) {
    List<Long> sorted = values.stream().sorted().toList();
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }
}
