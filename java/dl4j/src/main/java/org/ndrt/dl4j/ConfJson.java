package org.ndrt.dl4j;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ndrt.nn.conf.Json;

/**
 * The drop-in's own copy format (clone()) and its configuration JSON before Deeplearning4j's format
 * ({@link Dl4jJson}; fromJson still reads this one): the configuration classes by their fields, an
 * object is {"@class": name, field: value, ...} over the class's non-static, non-transient fields
 * (superclass fields first), so every layer, updater, activation and loss configuration round-trips
 * without a serializer per class.
 * Non-finite doubles (the "not set" NaN of the layer settings) are written as strings. Written with
 * org.ndrt.nn.conf.Json (no JSON library in the drop-in). Arrays (INDArray) inside a configuration, e.g.
 * a loss's class weights, are refused by name.
 */
public final class ConfJson {
  private static final String CLASS = "@class";

  private ConfJson() {}

  public static String write(Object o) {
    return Json.write(tree(o));
  }

  public static <T> T read(String json, Class<T> type) {
    return type.cast(value(Json.parse(json), type));
  }

  private static Object tree(Object v) {
    if (v == null || v instanceof String || v instanceof Boolean || v instanceof Integer || v instanceof Long) {
      return v;
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isFinite(d) ? (Object) d : Double.toString(d);
    }
    if (v instanceof Number) {
      return ((Number) v).longValue();
    }
    if (v instanceof Enum) {
      return ((Enum<?>) v).name();
    }
    if (v.getClass().isArray()) {
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < Array.getLength(v); ++i) {
        out.add(tree(Array.get(v, i)));
      }
      return out;
    }
    if (v instanceof List) {
      List<Object> out = new ArrayList<>();
      for (Object e : (List<?>) v) {
        out.add(tree(e));
      }
      return out;
    }
    if (v instanceof org.nd4j.linalg.schedule.ISchedule) {
      return Dl4jJsonValues.schedule((org.nd4j.linalg.schedule.ISchedule) v); // no no-arg constructors: ND4J's form
    }
    if (v instanceof Map || v instanceof org.nd4j.linalg.api.ndarray.INDArray || v.getClass().getName().startsWith("java.")) {
      throw new UnsupportedOperationException("configuration JSON: a " + v.getClass().getName() + " value is not written "
          + "by ndrt's Deeplearning4j drop-in");
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(CLASS, v.getClass().getName());
    for (Field f : fields(v.getClass())) {
      try {
        m.put(f.getName(), tree(f.get(v)));
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
    return m;
  }

  private static List<Field> fields(Class<?> c) {
    List<Field> out = new ArrayList<>();
    if (c.getSuperclass() != null && c.getSuperclass() != Object.class) {
      out.addAll(fields(c.getSuperclass()));
    }
    for (Field f : c.getDeclaredFields()) {
      int mod = f.getModifiers();
      if (!Modifier.isStatic(mod) && !Modifier.isTransient(mod) && !f.isSynthetic()) {
        f.setAccessible(true);
        out.add(f);
      }
    }
    return out;
  }

  private static Object value(Object t, Class<?> type) {
    if (t == null) {
      if (type.isPrimitive()) {
        throw new IllegalArgumentException("configuration JSON: null for a " + type);
      }
      return null;
    }
    if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
      double d = t instanceof String ? Double.parseDouble((String) t) : ((Number) t).doubleValue();
      return type == float.class || type == Float.class ? (Object) (float) d : (Object) d;
    }
    if (type == int.class || type == Integer.class) {
      return ((Number) t).intValue();
    }
    if (type == long.class || type == Long.class) {
      return ((Number) t).longValue();
    }
    if (type == boolean.class || type == Boolean.class || type == String.class) {
      return t;
    }
    if (type.isEnum()) {
      return enumValue(type, (String) t);
    }
    if (type.isArray()) {
      List<?> l = (List<?>) t;
      Object a = Array.newInstance(type.getComponentType(), l.size());
      for (int i = 0; i < l.size(); ++i) {
        Array.set(a, i, value(l.get(i), type.getComponentType()));
      }
      return a;
    }
    if (t instanceof List) {
      List<Object> out = new ArrayList<>();
      for (Object e : (List<?>) t) {
        out.add(value(e, Object.class));
      }
      return out;
    }
    if (!(t instanceof Map)) {
      throw new IllegalArgumentException("configuration JSON: " + t + " is not a " + type.getName());
    }
    return object(Json.obj(t, type.getName()));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object enumValue(Class<?> type, String name) {
    return Enum.valueOf((Class) type, name);
  }

  private static Object object(Map<String, Object> m) {
    String name = Json.str(m, CLASS);
    try {
      Class<?> c = Class.forName(name);
      if (org.nd4j.linalg.schedule.ISchedule.class.isAssignableFrom(c)) {
        return Dl4jJsonValues.readSchedule(m);
      }
      Constructor<?> k = c.getDeclaredConstructor();
      k.setAccessible(true);
      Object o = k.newInstance();
      for (Field f : fields(c)) {
        if (m.containsKey(f.getName())) {
          f.set(o, value(m.get(f.getName()), f.getType()));
        }
      }
      return o;
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException("configuration JSON: cannot make a " + name + " (" + e + ")", e);
    }
  }
}
