package io.steward.operator.support;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.jse.JsePlatform;

/**
 * Runs the Argo CD health check Steward ships (config/health/argocd-webapp-health.lua) the way Argo
 * CD does: the object as the global {@code obj}, the script's returned table as the verdict.
 */
public final class ArgoCdHealth {
  public static final Path SCRIPT = Path.of("config/health/argocd-webapp-health.lua");

  /** Argo CD's health status (Healthy, Progressing, Degraded, Suspended, ...) and message. */
  public record Verdict(String status, String message) {}

  private ArgoCdHealth() {}

  public static Verdict judge(JsonObject object) {
    String script;
    try {
      script = Files.readString(SCRIPT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Globals globals = JsePlatform.standardGlobals();
    globals.set("obj", lua(object));
    LuaValue result = globals.load(script, SCRIPT.getFileName().toString()).call();
    return new Verdict(result.get("status").tojstring(), result.get("message").optjstring(""));
  }

  private static LuaValue lua(JsonElement json) {
    if (json == null || json.isJsonNull()) {
      return LuaValue.NIL;
    }
    if (json.isJsonObject()) {
      LuaTable table = new LuaTable();
      for (Map.Entry<String, JsonElement> e : json.getAsJsonObject().entrySet()) {
        table.set(e.getKey(), lua(e.getValue()));
      }
      return table;
    }
    if (json.isJsonArray()) {
      JsonArray array = json.getAsJsonArray();
      LuaTable table = new LuaTable();
      for (int i = 0; i < array.size(); i++) {
        table.set(i + 1, lua(array.get(i)));
      }
      return table;
    }
    var primitive = json.getAsJsonPrimitive();
    if (primitive.isBoolean()) {
      return LuaValue.valueOf(primitive.getAsBoolean());
    }
    if (primitive.isNumber()) {
      return LuaValue.valueOf(primitive.getAsDouble());
    }
    return LuaValue.valueOf(primitive.getAsString());
  }
}
