package io.steward.operator.support;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The pictures beside the benchmark's and the reliability runs' tables, drawn with JFreeChart as PNG
 * (headless: no display is needed). Lines of (x, y) points per series, and failover timelines.
 */
public final class Charts {
  private static final int WIDTH = 960;
  private static final int HEIGHT = 540;
  private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
      new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f)};

  static {
    System.setProperty("java.awt.headless", "true");
  }

  private Charts() {}

  /** One line; {@code dashed} for a reference (a ceiling, a bound) rather than a measurement. */
  public record Series(String name, List<double[]> points, boolean dashed) {
    public static Series of(String name, List<double[]> points) {
      return new Series(name, points, false);
    }
  }

  /** A line chart; {@code logX} for distributions that span orders of magnitude. */
  public static void lines(Path png, String title, String xLabel, String yLabel, List<Series> series, boolean logX) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Series s : series) {
      XYSeries line = new XYSeries(s.name(), false, true);
      s.points().forEach(p -> line.add(p[0], p[1]));
      data.addSeries(line);
    }
    ValueAxis x = new NumberAxis(xLabel);
    if (logX) {
      LogAxis log = new LogAxis(xLabel);
      log.setTickUnit(new NumberTickUnit(1)); // one tick per power of ten, labelled as a plain number
      log.setNumberFormatOverride(new DecimalFormat("#,##0.###"));
      x = log;
    }
    NumberAxis y = new NumberAxis(yLabel);
    y.setAutoRangeIncludesZero(true);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
    for (int i = 0; i < series.size(); i++) {
      renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
      renderer.setSeriesStroke(i, series.get(i).dashed()
          ? new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
          : new BasicStroke(2f));
      // A series of a few points shows its points too, so a single measurement is still visible.
      renderer.setSeriesShapesVisible(i, series.get(i).points().size() <= 12);
    }
    XYPlot plot = new XYPlot(data, x, y, renderer);
    save(png, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, style(plot), true));
  }

  /** A failover run: who led when (one row per replica) above each replica's writes per second. */
  public record Timeline(List<String> replicas, List<Term> terms, Map<String, List<Double>> writeSeconds,
      List<Double> markers) {
    /** {@code replica} led from {@code start} to {@code end} (seconds from the run's origin). */
    public record Term(String replica, double start, double end) {}
  }

  public static void failover(Path png, String title, Timeline timeline) {
    NumberAxis time = new NumberAxis("seconds");
    CombinedDomainXYPlot combined = new CombinedDomainXYPlot(time);
    combined.setGap(8);

    XYSeriesCollection leading = new XYSeriesCollection();
    XYSeriesCollection writes = new XYSeriesCollection();
    List<String> replicas = timeline.replicas();
    for (int i = 0; i < replicas.size(); i++) {
      String replica = replicas.get(i);
      XYSeries terms = new XYSeries(replica, false, true);
      for (Timeline.Term term : timeline.terms()) {
        if (term.replica().equals(replica)) {
          terms.add(term.start(), i);
          terms.add(term.end(), i);
          terms.add(term.end(), null); // a gap until its next term
        }
      }
      leading.addSeries(terms);
      TreeMap<Long, Integer> perSecond = new TreeMap<>();
      timeline.writeSeconds().getOrDefault(replica, List.of()).forEach(s -> perSecond.merge((long) Math.floor(s), 1, Integer::sum));
      if (!perSecond.isEmpty()) {
        // Seconds without a write count zero, so the line falls to the axis while the replica is idle.
        long first = perSecond.firstKey() - 1;
        long last = perSecond.lastKey() + 1;
        for (long second = first; second <= last; second++) {
          perSecond.putIfAbsent(second, 0);
        }
      }
      XYSeries rate = new XYSeries(replica, true, true);
      perSecond.forEach((second, count) -> rate.add(second.doubleValue(), count.doubleValue()));
      writes.addSeries(rate);
    }
    XYLineAndShapeRenderer termRenderer = new XYLineAndShapeRenderer(true, false);
    XYStepRenderer writeRenderer = new XYStepRenderer();
    for (int i = 0; i < replicas.size(); i++) {
      termRenderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
      termRenderer.setSeriesStroke(i, new BasicStroke(8f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
      termRenderer.setSeriesVisibleInLegend(i, false);
      writeRenderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
      writeRenderer.setSeriesStroke(i, new BasicStroke(1.5f));
    }
    SymbolAxis who = new SymbolAxis("leader", replicas.toArray(String[]::new));
    who.setGridBandsVisible(false);
    XYPlot leaderPlot = style(new XYPlot(leading, null, who, termRenderer));
    XYPlot writePlot = style(new XYPlot(writes, null, new NumberAxis("writes/s"), writeRenderer));
    for (double marker : timeline.markers()) {
      for (XYPlot plot : List.of(leaderPlot, writePlot)) {
        ValueMarker line = new ValueMarker(marker, Color.GRAY, new BasicStroke(1f, BasicStroke.CAP_BUTT,
            BasicStroke.JOIN_MITER, 10f, new float[] {3f, 3f}, 0f));
        plot.addDomainMarker(line);
      }
    }
    combined.add(leaderPlot, 1);
    combined.add(writePlot, 2);
    // A hard failover starts a replica per kill: past a dozen the rows name them and the legend would not fit.
    save(png, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, combined, replicas.size() <= 12));
  }

  private static XYPlot style(XYPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return plot;
  }

  private static void save(Path png, JFreeChart chart) {
    chart.setBackgroundPaint(Color.WHITE);
    try {
      Files.createDirectories(png.toAbsolutePath().getParent());
      ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
