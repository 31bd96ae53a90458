package io.steward.operator.runtime.support;

import java.util.regex.Pattern;

/**
 * Exception text fit for the operator's logs, which must carry no env value or other user data at any
 * level. Messages from the API server and from client-java quote values (`Invalid value: "…"`, `For
 * input string: "…"`) and client-java's model checks append the whole JSON they refused, which for a
 * Deployment holds every env value. Kept: the exception types, the wording and the stack frames,
 * which say what failed and where; the WebApp's status and Events, readable by whoever may read the
 * WebApp, carry the full server message.
 */
public final class LogSafe {
  private static final Pattern QUOTED = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
  /**
   * Where serialized data starts: client-java's "JSON: " suffix, a JSON object, or an array of
   * objects, arrays or strings (field paths such as {@code env[0]} and {@code requests[cpu]} stay).
   */
  private static final Pattern DATA = Pattern.compile("JSON:|\\{|\\[\\s*[{\\[\"]");
  private static final int MAX_LENGTH = 300;

  private LogSafe() {}

  /** The message with quoted values and any serialized object replaced by "…". */
  public static String redact(String message) {
    if (message == null) {
      return null;
    }
    String text = QUOTED.matcher(message).replaceAll("\"…\"");
    var data = DATA.matcher(text);
    if (data.find()) {
      text = text.substring(0, data.start()) + "…";
    }
    return text.length() > MAX_LENGTH ? text.substring(0, MAX_LENGTH) + "…" : text;
  }

  /** Type and redacted message of {@code e} and its causes, on one line. */
  public static String describe(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t != e) {
        text.append("; caused by ");
      }
      text.append(t.getClass().getName());
      if (t.getMessage() != null) {
        text.append(": ").append(redact(t.getMessage()));
      }
    }
    return text.toString();
  }

  /** A stand-in for {@code e} with the same stack frames and causes but redacted messages, for stack traces in logs. */
  public static Throwable redacted(Throwable e) {
    Throwable cause = e.getCause() == null || e.getCause() == e ? null : redacted(e.getCause());
    String message = e.getMessage() == null ? e.getClass().getName() : e.getClass().getName() + ": " + redact(e.getMessage());
    Throwable copy = new RedactedException(message, cause);
    copy.setStackTrace(e.getStackTrace());
    return copy;
  }

  /** Prints as the original type's name and redacted message, without a type of its own. */
  private static final class RedactedException extends RuntimeException {
    RedactedException(String message, Throwable cause) {
      super(message, cause, false, true);
    }

    @Override
    public String toString() {
      return getMessage();
    }
  }
}
