package org.datavec.api.conf;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * String keys to string values (DataVec's Configuration, itself Hadoop's): the typed getters parse the
 * stored string and fall back to the default when the key is absent. No resource files, no variable
 * expansion (DataVec's XML loading is not reproduced).
 */
public class Configuration implements Serializable {
  private static final long serialVersionUID = 1L;
  private final Map<String, String> values = new LinkedHashMap<>();

  public Configuration() {}

  public Configuration(Configuration other) {
    values.putAll(other.values);
  }

  public String get(String name) {
    return values.get(name);
  }

  public String get(String name, String defaultValue) {
    return values.getOrDefault(name, defaultValue);
  }

  public void set(String name, String value) {
    values.put(name, value);
  }

  public void unset(String name) {
    values.remove(name);
  }

  public int getInt(String name, int defaultValue) {
    String v = values.get(name);
    return v == null ? defaultValue : Integer.parseInt(v.trim());
  }

  public void setInt(String name, int value) {
    set(name, Integer.toString(value));
  }

  public long getLong(String name, long defaultValue) {
    String v = values.get(name);
    return v == null ? defaultValue : Long.parseLong(v.trim());
  }

  public void setLong(String name, long value) {
    set(name, Long.toString(value));
  }

  public float getFloat(String name, float defaultValue) {
    String v = values.get(name);
    return v == null ? defaultValue : Float.parseFloat(v.trim());
  }

  public void setFloat(String name, float value) {
    set(name, Float.toString(value));
  }

  public boolean getBoolean(String name, boolean defaultValue) {
    String v = values.get(name);
    return v == null ? defaultValue : Boolean.parseBoolean(v.trim());
  }

  public void setBoolean(String name, boolean value) {
    set(name, Boolean.toString(value));
  }

  /** The first character of the value (DataVec's use: delimiters and quotes). */
  public char getChar(String name, char defaultValue) {
    String v = values.get(name);
    return v == null || v.isEmpty() ? defaultValue : v.charAt(0);
  }

  /** A comma-separated value as a list; empty when absent. */
  public Collection<String> getStringCollection(String name) {
    String v = values.get(name);
    return v == null || v.isEmpty() ? new ArrayList<>() : new ArrayList<>(Arrays.asList(v.split(",")));
  }

  public String[] getStrings(String name) {
    String v = values.get(name);
    return v == null ? null : v.split(",");
  }

  public void setStrings(String name, String... vals) {
    set(name, String.join(",", vals));
  }

  public int size() {
    return values.size();
  }

  @Override
  public String toString() {
    return "Configuration" + values;
  }
}
