package io.steward.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.steward.operator.support.Crds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * One CRD, two installers: config/crd/bases/steward.io_webapps.yaml is the source of truth, and the
 * chart's crds/ holds a byte-for-byte copy (Helm reads crds/ from inside the chart, so it cannot point
 * at the other file, and symlinks do not survive `helm package` everywhere).
 */
class ChartCrdTest {

  @Test
  void chartCrdIsACopyOfTheSourceOfTruth() throws Exception {
    assertThat(Files.readString(StewardChart.CHART_CRD))
        .as("%s must be a copy of %s; after changing the CRD run:%n  cp %s %s", StewardChart.CHART_CRD,
            Crds.WEBAPP_CRD, Crds.WEBAPP_CRD, StewardChart.CHART_CRD)
        .isEqualTo(Files.readString(Crds.WEBAPP_CRD));
  }

  @Test
  void chartHoldsOnlyThatCrdAndKustomizeInstallsTheSameFile() throws Exception {
    try (var files = Files.list(StewardChart.CHART.resolve("crds"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("steward.io_webapps.yaml");
    }
    Map<String, Object> kustomization = new Yaml().load(Files.readString(Path.of("config", "crd", "kustomization.yaml")));
    assertThat(kustomization.get("resources")).isEqualTo(List.of("bases/steward.io_webapps.yaml"));
    Map<String, Object> crd = new Yaml().load(Files.readString(StewardChart.CHART_CRD));
    assertThat(crd).containsEntry("kind", "CustomResourceDefinition");
    assertThat(Manifests.name(crd)).isEqualTo("webapps.steward.io");
  }
}
