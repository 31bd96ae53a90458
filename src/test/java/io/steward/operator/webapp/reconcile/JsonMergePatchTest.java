package io.steward.operator.webapp.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

class JsonMergePatchTest {
  private static JsonElement json(String text) {
    return JsonParser.parseString(text.replace('\'', '"'));
  }

  @Test
  void onlyChangedFieldsAreSentAndRemovedOnesBecomeNull() {
    JsonElement patch = JsonMergePatch.diff(json("{'phase':'Pending','url':'http://x','replicas':1,'nested':{'a':1,'b':2}}"),
        json("{'phase':'Ready','replicas':1,'nested':{'a':1,'b':3}}"));
    assertThat(patch).isEqualTo(json("{'phase':'Ready','url':null,'nested':{'b':3}}"));
  }

  @Test
  void arraysAreReplacedWhole() {
    assertThat(JsonMergePatch.diff(json("{'c':[1,2]}"), json("{'c':[1]}"))).isEqualTo(json("{'c':[1]}"));
  }

  @Test
  void fromNothingTheTargetIsThePatch() {
    assertThat(JsonMergePatch.diff(null, json("{'a':1}"))).isEqualTo(json("{'a':1}"));
  }
}
