package io.steward.operator.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ManagedFieldsTest {
  private final ManagedFields fields = new ManagedFields(
      Map.of("spec.containers", List.of("name"), "spec.containers[].env", List.of("name"),
          "spec.ports", List.of("port", "protocol")),
      Set.of("spec.containers[].env[]", "spec.containers[].env[].value", "spec.containers[].env[].valueFrom",
          "spec.ports[]", "spec.probe", "spec.limits.*"));

  private static JsonElement json(String text) {
    return JsonParser.parseString(text.replace('\'', '"'));
  }

  private static JsonObject object(String text) {
    return json(text).getAsJsonObject();
  }

  private JsonObject patch(String desired, String live, String owned) {
    return fields.patch(object(desired), object(live), object(owned));
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
  void entriesOfKeyedListsAndKeysOfMapsAreComparedOneByOne() {
    assertThat(fields.matches(json("{'spec':{'containers':[{'name':'app','env':[{'name':'A','value':'1'}]}]}}"),
        json("{'spec':{'containers':[{'name':'app','env':[{'name':'INJECTED','value':'x'},{'name':'A','value':'1'}]}]}}")))
        .as("an env var someone else added").isTrue();
    assertThat(fields.matches(json("{'spec':{'limits':{'cpu':'1'}}}"), json("{'spec':{'limits':{'cpu':'1','memory':'1Gi'}}}")))
        .as("a resource bound someone else added").isTrue();
    assertThat(fields.matches(json("{'spec':{'ports':[{'port':80,'protocol':'TCP'}]}}"),
        json("{'spec':{'ports':[{'port':80,'protocol':'UDP'}]}}"))).as("keys of several fields").isFalse();
  }

  @Test
  void unkeyedListsAreOneValue() {
    assertThat(fields.matches(json("{'spec':{'args':['a']}}"), json("{'spec':{'args':['a']}}"))).isTrue();
    assertThat(fields.matches(json("{'spec':{'args':['a']}}"), json("{'spec':{'args':['a','b']}}"))).isFalse();
  }

  @Test
  void numbersCompareByValue() {
    assertThat(fields.matches(json("{'spec':{'replicas':2}}"), json("{'spec':{'replicas':2.0}}"))).isTrue();
  }

  @Test
  void aConvergedObjectNeedsNoPatchWhateverOthersAdded() {
    assertThat(patch("{'spec':{'replicas':2,'containers':[{'name':'app','image':'a','env':[{'name':'A','value':'1'}]}]}}",
        "{'spec':{'replicas':2,'containers':[{'name':'proxy'},{'name':'app','image':'a','imagePullPolicy':'Always',"
            + "'env':[{'name':'A','value':'1'},{'name':'B','value':'2'}]}],'limits':{'memory':'1Gi'},'probe':{'x':1}}}",
        "{'f:spec':{'f:replicas':{},'f:containers':{'k:{\\'name\\':\\'app\\'}':{'f:image':{},'f:imagePullPolicy':{},"
            + "'f:env':{'k:{\\'name\\':\\'A\\'}':{'.':{}}}}}}}"))
        .as("fields not owned (env B, the memory limit, the probe, the sidecar) are left alone").isNull();
  }

  @Test
  void thePatchNamesOnlyTheFieldsAndEntriesThatDiffer() {
    assertThat(patch("{'spec':{'replicas':2,'containers':[{'name':'app','image':'good','env':[{'name':'A','value':'1'},"
            + "{'name':'C','value':'3'}]}]}}",
        "{'metadata':{'resourceVersion':'7'},'spec':{'replicas':5,'containers':[{'name':'proxy','image':'p'},"
            + "{'name':'app','image':'evil','env':[{'name':'A','value':'1'},{'name':'B','value':'2'}]}]}}",
        "{}"))
        .isEqualTo(json("{'spec':{'replicas':2,'containers':[{'name':'app','image':'good','env':[{'name':'C','value':'3'}]}]}}"));
  }

  @Test
  void ownedDroppableFieldsTheDesiredTreeNoLongerNamesAreRemoved() {
    String live = "{'spec':{'containers':[{'name':'app','image':'a','imagePullPolicy':'Always',"
        + "'env':[{'name':'A','value':'1'},{'name':'B','value':'2'}]}],"
        + "'limits':{'cpu':'1','memory':'1Gi'},'probe':{'x':1},'ports':[{'port':80,'protocol':'TCP'},{'port':81,'protocol':'TCP'}]}}";
    String owned = "{'f:spec':{'f:containers':{'k:{\\'name\\':\\'app\\'}':{'f:image':{},'f:imagePullPolicy':{},"
        + "'f:env':{'k:{\\'name\\':\\'A\\'}':{'.':{}}}}},'f:limits':{'f:cpu':{}},'f:probe':{'.':{}},"
        + "'f:ports':{'k:{\\'port\\':80,\\'protocol\\':\\'TCP\\'}':{'.':{}}}}}";

    assertThat(patch("{'spec':{'containers':[{'name':'app','image':'a'}],'ports':[{'port':81,'protocol':'TCP'}]}}",
        live, owned))
        .as("env A, cpu limit, probe and port 80 were Steward's; env B, the memory limit and the pull policy are not,"
            + " or not droppable")
        .isEqualTo(json("{'spec':{'containers':[{'name':'app','env':[{'name':'A','$patch':'delete'}]}],"
            + "'limits':{'cpu':null},'probe':null,'ports':[{'port':80,'protocol':'TCP','$patch':'delete'}]}}"));
  }

  @Test
  void anEnvVarThatChangesFromValueToValueFromDropsTheOldForm() {
    assertThat(patch("{'spec':{'containers':[{'name':'app','env':[{'name':'A','valueFrom':{'ref':'x'}}]}]}}",
        "{'spec':{'containers':[{'name':'app','env':[{'name':'A','value':'1'}]}]}}",
        "{'f:spec':{'f:containers':{'k:{\\'name\\':\\'app\\'}':{'f:env':{'k:{\\'name\\':\\'A\\'}':{'f:value':{}}}}}}}"))
        .isEqualTo(json("{'spec':{'containers':[{'name':'app','env':[{'name':'A','valueFrom':{'ref':'x'},'value':null}]}]}}"));
  }

  @Test
  void anAtomicMapIsComparedAndReplacedWhole() {
    ManagedFields service = new ManagedFields(Map.of(), Set.of(), Set.of("spec.selector"));
    assertThat(service.patch(object("{'spec':{'selector':{'a':'1'}}}"), object("{'spec':{'selector':{'a':'1'}}}"),
        object("{}"))).isNull();
    assertThat(service.patch(object("{'spec':{'selector':{'a':'1'}}}"), object("{'spec':{'selector':{'a':'1','b':'2'}}}"),
        object("{}"))).isEqualTo(json("{'spec':{'selector':{'a':'1','$patch':'replace'}}}"));
  }

  @Test
  void anEmptyStringMatchesAnOmittedValue() {
    assertThat(fields.matches(json("{'spec':{'containers':[{'name':'app','env':[{'name':'A','value':''}]}]}}"),
        json("{'spec':{'containers':[{'name':'app','env':[{'name':'A'}]}]}}"))).isTrue();
  }

  @Test
  void unionMergesFieldSets() {
    assertThat(ManagedFields.union(List.of(object("{'f:a':{'f:b':{}}}"), object("{'f:a':{'f:c':{}},'f:d':{}}"))))
        .isEqualTo(json("{'f:a':{'f:b':{},'f:c':{}},'f:d':{}}"));
  }

  @Test
  void withoutEmptiesDropsModelDefaults() {
    assertThat(ManagedFields.withoutEmpties(object("{'a':[],'b':{},'c':{'d':[]},'e':[{'f':[]}],'g':1,'h':null}")))
        .isEqualTo(json("{'e':[{}],'g':1}"));
  }
}
