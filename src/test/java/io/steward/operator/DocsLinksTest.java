package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the README, the docs and the chart's README leads to a file that exists
 * and, with a fragment, to a heading in it (anchors as the forges make them); the architecture page
 * carries its diagrams as Mermaid, which the forges render.
 */
class DocsLinksTest {

  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*$");

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path page : pages()) {
      for (String target : links(page)) {
        if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
          continue; // https:, mailto: and the like are not ours to check here
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(page + ": " + target + " (no such file)");
        } else if (fragment != null && !anchors(resolved).contains(fragment)) {
          broken.add(page + ": " + target + " (no such heading)");
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void theArchitecturePageDrawsItsDiagramsInMermaid() throws IOException {
    String page = Files.readString(Path.of("docs/architecture.md"));
    assertThat(page).contains("```mermaid\nflowchart");
    assertThat(page).doesNotContain("HAND_WRITTEN_PIECES");
  }

  @Test
  void anchorsAreMadeAsTheForgesMakeThem() throws IOException {
    Path page = Files.createTempFile("anchors", ".md");
    Files.writeString(page, "# Is it healthy?\n## Reading a WebApp's status\n```sh\n# not a heading\n```\n"
        + "## Cost: sharded `vs` leader\n## Twice\n## Twice\n");
    assertThat(anchors(page)).containsExactlyInAnyOrder("is-it-healthy", "reading-a-webapps-status",
        "cost-sharded-vs-leader", "twice", "twice-1");
    Files.delete(page);
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(Path.of("README.md"), Path.of("charts/steward/README.md")));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  private static List<String> links(Path page) throws IOException {
    List<String> targets = new ArrayList<>();
    boolean inCode = false;
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith("```")) {
        inCode = !inCode;
      } else if (!inCode) {
        Matcher m = LINK.matcher(line);
        while (m.find()) {
          targets.add(m.group(1));
        }
      }
    }
    return targets;
  }

  private static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    if (!page.toString().endsWith(".md")) {
      return anchors;
    }
    Map<String, Integer> seen = new HashMap<>();
    boolean inCode = false;
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith("```")) {
        inCode = !inCode;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (inCode || !m.matches()) {
        continue;
      }
      String slug = m.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      anchors.add(n == 0 ? slug : slug + "-" + n);
    }
    return anchors;
  }
}
