package io.steward.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata spring-boot-configuration-processor writes from StewardProperties, which
 * IDEs read to complete and explain {@code steward.*} in application.yaml: every property is there
 * with its Javadoc, and the README's configuration table names it.
 */
class ConfigurationMetadataTest {

  @Test
  void everyStewardPropertyHasItsJavadocAsDescriptionAndARowInTheReadme() throws Exception {
    JsonObject metadata;
    try (Reader reader = new InputStreamReader(getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json"),
        StandardCharsets.UTF_8)) {
      metadata = JsonParser.parseReader(reader).getAsJsonObject();
    }
    List<JsonObject> properties = StreamSupport.stream(metadata.getAsJsonArray("properties").spliterator(), false)
        .map(JsonElement::getAsJsonObject).filter(p -> p.get("name").getAsString().startsWith("steward.")).toList();
    assertThat(properties).extracting(p -> p.get("name").getAsString()).contains("steward.namespaces",
        "steward.workers", "steward.resync-period", "steward.leader-election.lease-duration",
        "steward.fencing.local-guard");
    assertThat(properties).allSatisfy(p -> assertThat(p.has("description") && !p.get("description").getAsString().isBlank())
        .as("description of %s", p.get("name")).isTrue());
    // Defaults are read from the field initialisers: what the IDE shows is what Steward uses.
    assertThat(properties).filteredOn(p -> p.get("name").getAsString().equals("steward.workers"))
        .singleElement().satisfies(p -> assertThat(p.get("defaultValue").getAsInt()).isEqualTo(8));

    String readme = Files.readString(Path.of("README.md"));
    assertThat(properties).allSatisfy(p -> {
      String name = p.get("name").getAsString();
      assertThat(readme.contains("`" + name + "`") || readme.contains("`" + name.substring(name.lastIndexOf('.') + 1) + "`"))
          .as("README names %s", name).isTrue();
    });
  }
}
