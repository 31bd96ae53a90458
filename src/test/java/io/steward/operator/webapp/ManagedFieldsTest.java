package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ManagedFieldsTest {
  private final ManagedFields fields = new ManagedFields(Set.of("spec.limits", "spec.selector"),
      Map.of("spec.containers", "name"));

  private static JsonElement json(String text) {
    return JsonParser.parseString(text.replace('\'', '"'));
  }

  @Test
  void fieldsTheServerDefaultedOrOthersAddedAreNotDrift() {
    assertThat(fields.matches(json("{'spec':{'replicas':2,'containers':[{'name':'app','image':'a'}]}}"),
        json("{'spec':{'replicas':2,'progressDeadlineSeconds':600,'containers':[{'name':'app','image':'a',"
            + "'imagePullPolicy':'IfNotPresent'},{'name':'sidecar','image':'proxy'}]},'status':{'x':1}}")))
        .isTrue();
  }

  @Test
  void aChangedManagedValueIsDrift() {
    assertThat(fields.matches(json("{'spec':{'replicas':2}}"), json("{'spec':{'replicas':5}}"))).isFalse();
    assertThat(fields.matches(json("{'spec':{'containers':[{'name':'app','image':'a'}]}}"),
        json("{'spec':{'containers':[{'name':'app','image':'evil'}]}}"))).isFalse();
  }

  @Test
  void aMissingKeyedElementIsDrift() {
    assertThat(fields.matches(json("{'spec':{'containers':[{'name':'app'}]}}"),
        json("{'spec':{'containers':[{'name':'sidecar'}]}}"))).isFalse();
  }

  @Test
  void nullAndEmptiesMeanAbsent() {
    assertThat(fields.matches(json("{'spec':{'probe':null,'env':[]}}"), json("{'spec':{}}"))).isTrue();
    assertThat(fields.matches(json("{'spec':{'probe':null}}"), json("{'spec':{'probe':{'path':'/'}}}"))).isFalse();
    assertThat(fields.matches(json("{'spec':{'env':[]}}"), json("{'spec':{'env':[{'name':'A'}]}}"))).isFalse();
  }

  @Test
  void exactMapsOwnTheirKeys() {
    assertThat(fields.matches(json("{'spec':{'limits':{'cpu':'1'}}}"), json("{'spec':{'limits':{'cpu':'1'}}}"))).isTrue();
    assertThat(fields.matches(json("{'spec':{'limits':{'cpu':'1'}}}"),
        json("{'spec':{'limits':{'cpu':'1','memory':'1Gi'}}}"))).isFalse();
    assertThat(fields.matches(json("{'spec':{'labels':{'a':'1'}}}"), json("{'spec':{'labels':{'a':'1','b':'2'}}}")))
        .as("maps outside exactPaths are open").isTrue();
  }

  @Test
  void unkeyedListsAreOwnedWhole() {
    assertThat(fields.matches(json("{'spec':{'ports':[{'port':80}]}}"),
        json("{'spec':{'ports':[{'port':80,'nodePort':30001}]}}"))).isTrue();
    assertThat(fields.matches(json("{'spec':{'ports':[{'port':80}]}}"),
        json("{'spec':{'ports':[{'port':80},{'port':81}]}}"))).isFalse();
  }

  @Test
  void numbersCompareByValue() {
    assertThat(fields.matches(json("{'spec':{'replicas':2}}"), json("{'spec':{'replicas':2.0}}"))).isTrue();
  }

  @Test
  void overlayWritesManagedFieldsAndKeepsTheRest() {
    JsonElement live = json("{'metadata':{'resourceVersion':'7'},'spec':{'replicas':5,'paused':false,"
        + "'limits':{'cpu':'1','memory':'1Gi'},'probe':{'path':'/'},"
        + "'containers':[{'name':'sidecar','image':'proxy'},{'name':'app','image':'evil','imagePullPolicy':'Always'}]}}");
    JsonElement desired = json("{'spec':{'replicas':2,'limits':{'cpu':'2'},'probe':null,"
        + "'containers':[{'name':'app','image':'good'}]}}");

    JsonElement merged = fields.overlay(live, desired);

    assertThat(merged).isEqualTo(json("{'metadata':{'resourceVersion':'7'},'spec':{'replicas':2,'paused':false,"
        + "'limits':{'cpu':'2'},"
        + "'containers':[{'name':'sidecar','image':'proxy'},{'name':'app','image':'good','imagePullPolicy':'Always'}]}}"));
    assertThat(fields.matches(desired, merged)).isTrue();
  }

  @Test
  void overlayAppendsAMissingKeyedElement() {
    JsonElement merged = fields.overlay(json("{'spec':{'containers':[]}}"),
        json("{'spec':{'containers':[{'name':'app','image':'a'}]}}"));
    assertThat(merged).isEqualTo(json("{'spec':{'containers':[{'name':'app','image':'a'}]}}"));
  }

  @Test
  void withoutEmptiesDropsModelDefaults() {
    assertThat(ManagedFields.withoutEmpties(json("{'a':[],'b':{},'c':{'d':[]},'e':[{'f':[]}],'g':1}").getAsJsonObject()))
        .isEqualTo(json("{'e':[{}],'g':1}"));
  }
}
