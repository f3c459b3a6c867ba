package org.ndrt.nn.conf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the configurations need, without a library: objects become {@code LinkedHashMap}
 * (key order kept), arrays {@code ArrayList}, numbers {@code Double} (or {@code Long} when written
 * without a fraction or exponent), plus {@code String}, {@code Boolean} and {@code null}. Doubles are
 * written with {@link Double#toString} so they read back bit for bit.
 */
public final class Json {
  private Json() {}

  /** Pretty-prints maps, lists, numbers, strings, booleans and null (2-space indent). */
  public static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, 0);
    return sb.append('\n').toString();
  }

  /** Parses one JSON value; anything malformed is an IllegalArgumentException naming the position. */
  public static Object parse(String text) {
    Parser p = new Parser(text);
    p.skipSpace();
    Object v = p.value();
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("unexpected text after the value");
    }
    return v;
  }

  private static void write(StringBuilder sb, Object v, int indent) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String) {
      quote(sb, (String) v);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (!Double.isFinite(d)) {
        throw new IllegalArgumentException("JSON has no " + d + " (a configuration value must be finite)");
      }
      sb.append(d);
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map) {
      Map<?, ?> m = (Map<?, ?>) v;
      if (m.isEmpty()) {
        sb.append("{}");
        return;
      }
      sb.append("{\n");
      int i = 0;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        pad(sb, indent + 2);
        quote(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        write(sb, e.getValue(), indent + 2);
        sb.append(++i < m.size() ? ",\n" : "\n");
      }
      pad(sb, indent);
      sb.append('}');
    } else if (v instanceof List) {
      List<?> l = (List<?>) v;
      boolean flat = l.stream().allMatch(x -> x == null || x instanceof Number || x instanceof Boolean);
      sb.append('[');
      for (int i = 0; i < l.size(); ++i) {
        if (!flat) {
          sb.append('\n');
          pad(sb, indent + 2);
        }
        write(sb, l.get(i), indent + 2);
        if (i + 1 < l.size()) {
          sb.append(flat ? ", " : ",");
        }
      }
      if (!flat && !l.isEmpty()) {
        sb.append('\n');
        pad(sb, indent);
      }
      sb.append(']');
    } else if (v instanceof long[]) {
      List<Object> l = new ArrayList<>();
      for (long x : (long[]) v) {
        l.add(x);
      }
      write(sb, l, indent);
    } else {
      throw new IllegalArgumentException("JSON: cannot write a " + v.getClass().getName());
    }
  }

  private static void pad(StringBuilder sb, int n) {
    for (int i = 0; i < n; ++i) {
      sb.append(' ');
    }
  }

  /**
   * Appends {@code s} as a JSON string. Also {@code <}, {@code >}, {@code &} and the line separators
   * U+2028/U+2029 are written as backslash-u escapes (still the same JSON): the dashboard serves this
   * text into a page.
   */
  public static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); ++i) {
      char c = s.charAt(i);
      switch (c) {
        case '"': sb.append("\\\""); break;
        case '\\': sb.append("\\\\"); break;
        case '\n': sb.append("\\n"); break;
        case '\r': sb.append("\\r"); break;
        case '\t': sb.append("\\t"); break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    sb.append('"');
  }


  private static final class Parser {
    final String s;
    int pos;

    Parser(String s) {
      this.s = s;
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("JSON: " + what + " at offset " + pos);
    }

    void skipSpace() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
        ++pos;
      }
    }

    Object value() {
      if (pos >= s.length()) {
        throw error("unexpected end");
      }
      char c = s.charAt(pos);
      if (c == '{') {
        return object();
      } else if (c == '[') {
        return array();
      } else if (c == '"') {
        return string();
      } else if (s.startsWith("true", pos)) {
        pos += 4;
        return Boolean.TRUE;
      } else if (s.startsWith("false", pos)) {
        pos += 5;
        return Boolean.FALSE;
      } else if (s.startsWith("null", pos)) {
        pos += 4;
        return null;
      }
      return number();
    }

    Map<String, Object> object() {
      Map<String, Object> m = new LinkedHashMap<>();
      ++pos;
      skipSpace();
      if (pos < s.length() && s.charAt(pos) == '}') {
        ++pos;
        return m;
      }
      while (true) {
        skipSpace();
        if (pos >= s.length() || s.charAt(pos) != '"') {
          throw error("expected a quoted key");
        }
        String k = string();
        skipSpace();
        expect(':');
        skipSpace();
        if (m.put(k, value()) != null) {
          throw error("duplicate key \"" + k + "\"");
        }
        skipSpace();
        if (pos < s.length() && s.charAt(pos) == ',') {
          ++pos;
          continue;
        }
        expect('}');
        return m;
      }
    }

    List<Object> array() {
      List<Object> l = new ArrayList<>();
      ++pos;
      skipSpace();
      if (pos < s.length() && s.charAt(pos) == ']') {
        ++pos;
        return l;
      }
      while (true) {
        skipSpace();
        l.add(value());
        skipSpace();
        if (pos < s.length() && s.charAt(pos) == ',') {
          ++pos;
          continue;
        }
        expect(']');
        return l;
      }
    }

    String string() {
      StringBuilder sb = new StringBuilder();
      ++pos;
      while (pos < s.length()) {
        char c = s.charAt(pos++);
        if (c == '"') {
          return sb.toString();
        }
        if (c != '\\') {
          sb.append(c);
          continue;
        }
        if (pos >= s.length()) {
          break;
        }
        char e = s.charAt(pos++);
        switch (e) {
          case 'n': sb.append('\n'); break;
          case 'r': sb.append('\r'); break;
          case 't': sb.append('\t'); break;
          case 'b': sb.append('\b'); break;
          case 'f': sb.append('\f'); break;
          case 'u':
            if (pos + 4 > s.length()) {
              throw error("short \\u escape");
            }
            sb.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
            pos += 4;
            break;
          default: sb.append(e);
        }
      }
      throw error("unterminated string");
    }

    Object number() {
      int start = pos;
      boolean integral = true;
      while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
        integral &= "eE.".indexOf(s.charAt(pos)) < 0;
        ++pos;
      }
      if (start == pos) {
        throw error("unexpected character '" + s.charAt(pos) + "'");
      }
      String t = s.substring(start, pos);
      try {
        return integral ? (Object) Long.parseLong(t) : (Object) Double.parseDouble(t);
      } catch (NumberFormatException e) {
        pos = start;
        throw error("bad number \"" + t + "\"");
      }
    }

    void expect(char c) {
      if (pos >= s.length() || s.charAt(pos) != c) {
        throw error("expected '" + c + "'");
      }
      ++pos;
    }
  }

  // ------------------------------------------------------------------ typed access for fromJson

  /** The object {@code v} as a map, or an error naming {@code what}. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> obj(Object v, String what) {
    if (!(v instanceof Map)) {
      throw new IllegalArgumentException("configuration JSON: " + what + " must be an object");
    }
    return (Map<String, Object>) v;
  }

  /** A required number field. */
  public static double num(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof Number)) {
      throw new IllegalArgumentException("configuration JSON: \"" + key + "\" must be a number (got " + v + ")");
    }
    return ((Number) v).doubleValue();
  }

  /** An optional number field. */
  public static double num(Map<String, Object> m, String key, double dflt) {
    return m.get(key) == null ? dflt : num(m, key);
  }

  /** A required integer field. */
  public static long integer(Map<String, Object> m, String key) {
    double d = num(m, key);
    if (d != Math.rint(d)) {
      throw new IllegalArgumentException("configuration JSON: \"" + key + "\" must be an integer (got " + d + ")");
    }
    return (long) d;
  }

  /** An optional integer field. */
  public static long integer(Map<String, Object> m, String key, long dflt) {
    return m.get(key) == null ? dflt : integer(m, key);
  }

  /** A required string field. */
  public static String str(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof String)) {
      throw new IllegalArgumentException("configuration JSON: \"" + key + "\" must be a string (got " + v + ")");
    }
    return (String) v;
  }

  /** An optional string field. */
  public static String str(Map<String, Object> m, String key, String dflt) {
    return m.get(key) == null ? dflt : str(m, key);
  }

  /** An optional boolean field. */
  public static boolean bool(Map<String, Object> m, String key, boolean dflt) {
    Object v = m.get(key);
    if (v == null) {
      return dflt;
    }
    if (!(v instanceof Boolean)) {
      throw new IllegalArgumentException("configuration JSON: \"" + key + "\" must be true or false");
    }
    return (Boolean) v;
  }

  /** A required array of integers. */
  public static int[] ints(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof List)) {
      throw new IllegalArgumentException("configuration JSON: \"" + key + "\" must be an array of integers");
    }
    List<?> l = (List<?>) v;
    int[] out = new int[l.size()];
    for (int i = 0; i < out.length; ++i) {
      if (!(l.get(i) instanceof Number)) {
        throw new IllegalArgumentException("configuration JSON: \"" + key + "\" must be an array of integers");
      }
      out[i] = ((Number) l.get(i)).intValue();
    }
    return out;
  }

  /** A required array of exactly two integers (a 2-D kernel, stride, padding or dilation). */
  public static int[] pair(Map<String, Object> m, String key) {
    int[] v = ints(m, key);
    if (v.length != 2) {
      throw new IllegalArgumentException("configuration JSON: \"" + key + "\" needs 2 values, got " + v.length);
    }
    return v;
  }

  /** {@code int[]} as a JSON list. */
  public static List<Object> list(int... v) {
    List<Object> l = new ArrayList<>();
    for (int x : v) {
      l.add((long) x);
    }
    return l;
  }
}
