package io.steward.operator.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {
  @TempDir
  Path dir;

  @Test
  void aFailoverTimelineShowsEachReplicasTermAndWrites() throws Exception {
    Charts.Timeline timeline = new Charts.Timeline(List.of("r0", "r1", "r2"),
        List.of(new Charts.Timeline.Term("r0", 0, 10), new Charts.Timeline.Term("r1", 12, 30)),
        Map.of("r0", List.of(1.0, 1.5, 2.0, 9.0), "r1", List.of(13.0, 13.2, 20.0)), List.of(10.0));
    Path png = dir.resolve("failover.png");
    Charts.failover(png, "hard failover", timeline);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(960);
    // The upper third is the leader plot: r0's and r1's terms are bands of their colours; r2 never led.
    assertThat(colours(image, 0, image.getHeight() / 3)).contains(0x1f77b4, 0xd62728).doesNotContain(0x2ca02c);
    // The writes plot, between it and the legend, has r0's and r1's lines.
    assertThat(colours(image, image.getHeight() / 3, image.getHeight() - 40)).contains(0x1f77b4, 0xd62728)
        .doesNotContain(0x2ca02c);
  }

  private static Set<Integer> colours(BufferedImage image, int fromY, int toY) {
    Set<Integer> colours = new HashSet<>();
    for (int x = 0; x < image.getWidth(); x++) {
      for (int y = fromY; y < toY; y++) {
        colours.add(image.getRGB(x, y) & 0xffffff);
      }
    }
    return colours;
  }
}
