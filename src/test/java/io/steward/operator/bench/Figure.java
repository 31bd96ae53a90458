package io.steward.operator.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured quantity over its repeats: the median, the spread (min and max) and every value,
 * so a reader can judge the noise. Values are rounded to 4 significant digits when written.
 */
public record Figure(String unit, int repeats, double median, double min, double max, List<Double> values) {

  public static Figure of(String unit, Collection<? extends Number> samples) {
    List<Double> values = new ArrayList<>();
    samples.forEach(s -> values.add(s.doubleValue()));
    if (values.isEmpty()) {
      return new Figure(unit, 0, Double.NaN, Double.NaN, Double.NaN, List.of());
    }
    List<Double> sorted = values.stream().sorted().toList();
    return new Figure(unit, values.size(), percentile(sorted, 50), sorted.get(0), sorted.get(sorted.size() - 1),
        values.stream().map(Figure::round).toList());
  }

  public static Figure single(String unit, double value) {
    return of(unit, List.of(value));
  }

  /** Nearest-rank percentile of an ascending list (the median interpolates for an even count). */
  public static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    if (p == 50) {
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  public static double round(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value) || value == 0) {
      return value;
    }
    double scale = Math.pow(10, 3 - Math.floor(Math.log10(Math.abs(value))));
    return Math.round(value * scale) / scale;
  }

  /** The same values, each rounded as {@link #round} does, in the same order. */
  public static Map<String, Double> rounded(Map<String, Double> values) {
    Map<String, Double> rounded = new LinkedHashMap<>();
    values.forEach((key, value) -> rounded.put(key, round(value)));
    return rounded;
  }

  /** "1.23 s (n=3, 1.20–1.31)" style text for the Markdown table. */
  public String text() {
    if (repeats == 0) {
      return "—";
    }
    String median = format(this.median) + (unit.isEmpty() ? "" : " " + unit);
    return repeats == 1 ? median : median + " (" + format(min) + "–" + format(max) + ")";
  }

  public static String format(double value) {
    if (Double.isNaN(value)) {
      return "—";
    }
    double r = round(value);
    if (r == Math.rint(r) && Math.abs(r) < 1e15) {
      return Long.toString((long) r);
    }
    return Double.toString(r);
  }
}
