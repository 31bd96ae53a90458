package io.steward.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark writes its pictures beside results.md, which links each of them. */
class BenchChartsTest {
  @TempDir
  Path dir;

  static BenchResults results() {
    BenchResults r = new BenchResults();
    r.date = "2026-12-03T00:00:00Z";
    r.settings.put("mode", "test");
    r.curves.add(new BenchResults.Curve("create-at-once", 100, 1, 150,
        List.of(new double[] {0, 0}, new double[] {0.4, 50}, new double[] {0.9, 100})));
    r.curves.add(new BenchResults.Curve("backlog", 100, 1, 150,
        List.of(new double[] {0, 0}, new double[] {0.3, 60}, new double[] {0.7, 100})));
    r.latency = new BenchResults.Latency(3, Figure.of("ms", List.of(5, 7, 16)), 7, 16, 1000,
        Figure.of("ms", List.of(4000, 4300, 6500)), 4300, 6500, 3, 8.2, Figure.of("ms", List.of(100, 116, 224)),
        116, 224, 3, 1.3, 0);
    Figure rss = Figure.of("MiB", List.of(212));
    r.memory.add(new BenchResults.Memory(1000, "chart", rss, rss, Figure.of("MiB", List.of(41)), rss, rss, rss, rss, rss,
        Figure.of("", List.of(60)), rss));
    r.memory.add(new BenchResults.Memory(5000, "chart", Figure.of("MiB", List.of(269)), rss, Figure.of("MiB", List.of(79)),
        rss, rss, rss, rss, rss, Figure.of("", List.of(60)), Figure.of("MiB", List.of())));
    return r;
  }

  @Test
  void writesConvergenceLatencyAndMemoryPicturesAndLinksThem() throws Exception {
    ResultsWriter.write(results(), dir);

    for (String file : List.of("convergence-n100.png", "latency.png", "memory.png")) {
      BufferedImage image = ImageIO.read(dir.resolve(file).toFile());
      assertThat(image).as(file).isNotNull();
      assertThat(image.getWidth()).isEqualTo(960);
      // The first two series' colours are drawn: there are lines, not only axes.
      assertThat(colours(image)).as(file).contains(0x1f77b4, 0xd62728);
    }
    String md = Files.readString(dir.resolve("results.md"));
    assertThat(md).contains("](convergence-n100.png)", "](latency.png)", "](memory.png)");
    assertThat(Files.readString(dir.resolve("results.json"))).contains("\"curves\"");
  }

  @Test
  void drawsOnlyWhatTheRunMeasured() throws Exception {
    BenchResults r = new BenchResults();
    r.date = "2026-12-03T00:00:00Z";
    r.settings.put("mode", "smoke");
    ResultsWriter.write(r, dir);
    try (var files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("results.json", "results.md");
    }
  }

  static java.util.Set<Integer> colours(BufferedImage image) {
    java.util.Set<Integer> found = new java.util.HashSet<>();
    for (int x = 0; x < image.getWidth(); x++) {
      for (int y = 0; y < image.getHeight(); y++) {
        found.add(image.getRGB(x, y) & 0xffffff);
      }
    }
    return found;
  }
}
