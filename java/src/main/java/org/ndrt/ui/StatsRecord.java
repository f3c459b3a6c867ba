package org.ndrt.ui;

import java.util.List;
import java.util.Map;
import org.ndrt.nn.conf.Json;

/**
 * One record of a training session as the dashboard stores and serves it: a JSON object on one
 * line with at least {@code "session"} (a string) and {@code "type"}: {@code "static"} (the model's
 * description, once per session and worker) or {@code "update"} (one iteration's numbers). The
 * storages keep the text as it is; the page reads the fields ({@link StatsListener} lists them).
 */
public record StatsRecord(String session, String type, String json) {
  public static final String STATIC = "static";
  public static final String UPDATE = "update";
  /** The longest record accepted (a remote post, a line of a file): 4 MiB. */
  public static final int MAX_CHARS = 4 << 20;

  public StatsRecord {
    if (session == null || session.isEmpty() || session.length() > 200) {
      throw new IllegalArgumentException("a stats record needs a session id of 1 to 200 characters");
    }
    if (!STATIC.equals(type) && !UPDATE.equals(type)) {
      throw new IllegalArgumentException("a stats record's type is \"static\" or \"update\", got " + type);
    }
  }

  /** A record of {@code fields} (which must hold "session" and "type"), written as compact JSON. */
  public static StatsRecord of(Map<String, Object> fields) {
    Object s = fields.get("session");
    Object t = fields.get("type");
    return new StatsRecord(s instanceof String ? (String) s : null, t instanceof String ? (String) t : null,
        compact(fields));
  }

  /** Reads one record's JSON text; anything else is an IllegalArgumentException saying why. */
  public static StatsRecord parse(String json) {
    if (json == null || json.length() > MAX_CHARS) {
      throw new IllegalArgumentException("a stats record is a JSON object of at most " + MAX_CHARS + " characters");
    }
    Object v = Json.parse(json);
    if (!(v instanceof Map)) {
      throw new IllegalArgumentException("a stats record is a JSON object");
    }
    Map<?, ?> m = (Map<?, ?>) v;
    Object s = m.get("session");
    Object t = m.get("type");
    // Written again compactly: one line whatever the sender's layout.
    @SuppressWarnings("unchecked")
    Map<String, Object> fields = (Map<String, Object>) m;
    return new StatsRecord(s instanceof String ? (String) s : null, t instanceof String ? (String) t : null,
        compact(fields));
  }

  /** Compact JSON of maps, lists, arrays of double/long, numbers (non-finite ones as null), strings, booleans. */
  static String compact(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String) {
      Json.quote(sb, (String) v);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      sb.append(Double.isFinite(d) ? Double.toString(d) : "null");
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        Json.quote(sb, String.valueOf(e.getKey()));
        sb.append(':');
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof List) {
      sb.append('[');
      boolean first = true;
      for (Object o : (List<?>) v) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        write(sb, o);
      }
      sb.append(']');
    } else {
      throw new IllegalArgumentException("no JSON for a " + v.getClass().getName());
    }
  }
}
