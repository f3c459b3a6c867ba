package org.ndrt.dl4j;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.deeplearning4j.nn.conf.distribution.BinomialDistribution;
import org.deeplearning4j.nn.conf.distribution.ConstantDistribution;
import org.deeplearning4j.nn.conf.distribution.Distribution;
import org.deeplearning4j.nn.conf.distribution.GaussianDistribution;
import org.deeplearning4j.nn.conf.distribution.LogNormalDistribution;
import org.deeplearning4j.nn.conf.distribution.NormalDistribution;
import org.deeplearning4j.nn.conf.distribution.OrthogonalDistribution;
import org.deeplearning4j.nn.conf.distribution.TruncatedNormalDistribution;
import org.deeplearning4j.nn.conf.distribution.UniformDistribution;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.schedule.ExponentialSchedule;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.nd4j.linalg.schedule.ISchedule;
import org.nd4j.linalg.schedule.InverseSchedule;
import org.nd4j.linalg.schedule.MapSchedule;
import org.nd4j.linalg.schedule.PolySchedule;
import org.nd4j.linalg.schedule.ScheduleType;
import org.nd4j.linalg.schedule.SigmoidSchedule;
import org.nd4j.linalg.schedule.StepSchedule;
import org.ndrt.nn.conf.Json;

/**
 * The values inside Deeplearning4j's configuration JSON (Jackson's form, {"@class": name, ...}):
 * activations, updaters, losses, schedules, weight initialisation, distributions, dropout and
 * regularization. The drop-in's ND4J classes have ND4J's names and field names, so updaters, losses and
 * activations are written and read by their fields; the rest by name tables. A class the drop-in does
 * not have is an IllegalArgumentException naming it.
 */
public final class Dl4jJsonValues {
  static final String CLASS = "@class";
  private static final String ACT = "org.nd4j.linalg.activations.impl.Activation";
  private static final String WI = "org.deeplearning4j.nn.weights.WeightInit";
  private static final String REG = "org.nd4j.linalg.learning.regularization.";
  private static final String DROPOUT = "org.deeplearning4j.nn.conf.dropout.Dropout";

  /** Jackson's order: the type key first, then alphabetical. */
  static final Comparator<String> KEYS = (a, b) -> a.equals(b) ? 0 : a.equals(CLASS) || a.equals("type") ? -1
      : b.equals(CLASS) || b.equals("type") ? 1 : a.compareTo(b);

  private Dl4jJsonValues() {}

  static Map<String, Object> obj(String cls) {
    Map<String, Object> m = new TreeMap<>(KEYS);
    if (cls != null) {
      m.put(CLASS, cls);
    }
    return m;
  }

  static Object num(double d) {
    return Double.isFinite(d) ? (Object) d : Double.toString(d);
  }

  static double dbl(Object v, String key) {
    if (v instanceof Number) {
      return ((Number) v).doubleValue();
    }
    if (v instanceof String) {
      return Double.parseDouble((String) v);
    }
    throw new IllegalArgumentException("configuration JSON: \"" + key + "\" must be a number (got " + v + ")");
  }

  // ------------------------------------------------------------------ reflection on the drop-in's own classes

  static Field field(Class<?> c, String name) {
    for (; c != null && c != Object.class; c = c.getSuperclass()) {
      try {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f;
      } catch (NoSuchFieldException e) {
        // look in the superclass
      }
    }
    return null;
  }

  static Object get(Object o, String name) {
    try {
      return field(o.getClass(), name).get(o);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  static void set(Object o, String name, Object v) {
    try {
      field(o.getClass(), name).set(o, v);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  static <T> T make(Class<T> c) {
    try {
      Constructor<T> k = c.getDeclaredConstructor();
      k.setAccessible(true);
      return k.newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("configuration JSON: cannot make a " + c.getName() + " (" + e + ")", e);
    }
  }

  static Class<?> known(String name, Class<?> base) {
    try {
      Class<?> c = Class.forName(name);
      if (base.isAssignableFrom(c) && !Modifier.isAbstract(c.getModifiers())) {
        return c;
      }
    } catch (ClassNotFoundException e) {
      // refused below
    }
    throw unknown(name, base.getSimpleName());
  }

  static IllegalArgumentException unknown(String name, String what) {
    return new IllegalArgumentException("configuration JSON: " + what + " class \"" + name + "\" is not in ndrt's "
        + "Deeplearning4j drop-in");
  }

  // ------------------------------------------------------------------ updaters, losses, schedules (by fields)

  /** An IUpdater or ILossFunction as ND4J writes it: its fields, nulls left out. */
  static Object bean(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof ISchedule) {
      return schedule((ISchedule) v);
    }
    Map<String, Object> m = obj(v.getClass().getName());
    for (Class<?> c = v.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) || Modifier.isTransient(f.getModifiers()) || f.isSynthetic()) {
          continue;
        }
        f.setAccessible(true);
        Object x;
        try {
          x = f.get(v);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
        if (x == null) {
          continue;
        }
        if (f.getName().equals("learningRate") && field(v.getClass(), "learningRateSchedule") != null
            && get(v, "learningRateSchedule") != null) {
          x = Double.NaN; // ND4J's updaters keep no fixed rate beside a schedule
        }
        if (x instanceof INDArray) {
          throw new UnsupportedOperationException("configuration JSON: " + v.getClass().getSimpleName() + "'s array "
              + f.getName() + " (e.g. loss weights) is not written by ndrt's Deeplearning4j drop-in");
        }
        m.put(f.getName(), x instanceof Double || x instanceof Float ? num(((Number) x).doubleValue())
            : x instanceof Enum ? ((Enum<?>) x).name() : x instanceof ISchedule ? schedule((ISchedule) x)
            : x instanceof Map ? intMap((Map<?, ?>) x) : x);
      }
    }
    return m;
  }

  private static Map<String, Object> intMap(Map<?, ?> in) {
    Map<String, Object> m = new TreeMap<>(Comparator.comparingInt(Integer::parseInt));
    for (Map.Entry<?, ?> e : in.entrySet()) {
      m.put(String.valueOf(e.getKey()), num(((Number) e.getValue()).doubleValue()));
    }
    return m;
  }

  static Object schedule(ISchedule s) {
    Map<String, Object> m = obj(s.getClass().getName());
    for (String k : new String[] {"scheduleType", "initialValue", "gamma", "power", "decayRate", "step", "maxIter",
        "stepSize", "value", "values"}) {
      Field f = field(s.getClass(), k);
      if (f != null) {
        Object x = get(s, k);
        m.put(k, x instanceof Enum ? ((Enum<?>) x).name() : x instanceof Double ? num((Double) x)
            : x instanceof Map ? intMap((Map<?, ?>) x) : x);
      }
    }
    return m;
  }

  /** Reads an updater or loss: the drop-in's class of that name, its fields set from the JSON. */
  static <T> T readBean(Object json, Class<T> base, String what) {
    if (json == null) {
      return null;
    }
    Map<String, Object> m = Json.obj(json, what);
    String name = Json.str(m, CLASS);
    Class<?> c = known(name, base);
    Object o = make(c);
    for (Map.Entry<String, Object> e : m.entrySet()) {
      Field f = e.getKey().equals(CLASS) ? null : field(c, e.getKey());
      if (f == null || e.getValue() == null) {
        continue;
      }
      set(o, e.getKey(), convert(e.getValue(), f.getType(), e.getKey()));
    }
    return base.cast(o);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Object convert(Object v, Class<?> t, String key) {
    if (t == double.class || t == Double.class) {
      return dbl(v, key);
    }
    if (t == float.class || t == Float.class) {
      return (float) dbl(v, key);
    }
    if (t == int.class || t == Integer.class) {
      return (int) dbl(v, key);
    }
    if (t == long.class || t == Long.class) {
      return (long) dbl(v, key);
    }
    if (t.isEnum()) {
      return Enum.valueOf((Class) t, (String) v);
    }
    if (t == ISchedule.class) {
      return readSchedule(v);
    }
    if (Map.class.isAssignableFrom(t)) {
      TreeMap<Integer, Double> out = new TreeMap<>();
      for (Map.Entry<String, Object> e : Json.obj(v, key).entrySet()) {
        out.put(Integer.parseInt(e.getKey()), dbl(e.getValue(), key));
      }
      return out;
    }
    if (t == int[].class) {
      return Json.ints(Json.obj(java.util.Collections.singletonMap(key, v), key), key);
    }
    return v;
  }

  static ISchedule readSchedule(Object json) {
    if (json == null) {
      return null;
    }
    Map<String, Object> m = Json.obj(json, "a schedule");
    String name = Json.str(m, CLASS);
    String s = name.substring(name.lastIndexOf('.') + 1);
    ScheduleType t = m.get("scheduleType") == null ? ScheduleType.ITERATION
        : ScheduleType.valueOf(Json.str(m, "scheduleType"));
    double init = m.containsKey("initialValue") ? dbl(m.get("initialValue"), "initialValue") : 0;
    switch (name.startsWith("org.nd4j.linalg.schedule.") ? s : "") {
      case "FixedSchedule": return new FixedSchedule(dbl(m.get("value"), "value"));
      case "ExponentialSchedule": return new ExponentialSchedule(t, init, dbl(m.get("gamma"), "gamma"));
      case "InverseSchedule":
        return new InverseSchedule(t, init, dbl(m.get("gamma"), "gamma"), dbl(m.get("power"), "power"));
      case "PolySchedule":
        return new PolySchedule(t, init, dbl(m.get("power"), "power"), (int) dbl(m.get("maxIter"), "maxIter"));
      case "SigmoidSchedule":
        return new SigmoidSchedule(t, init, dbl(m.get("gamma"), "gamma"), (int) dbl(m.get("stepSize"), "stepSize"));
      case "StepSchedule":
        return new StepSchedule(t, init, dbl(m.get("decayRate"), "decayRate"), dbl(m.get("step"), "step"));
      case "MapSchedule": {
        @SuppressWarnings("unchecked")
        Map<Integer, Double> values = (Map<Integer, Double>) convert(m.get("values"), Map.class, "values");
        return new MapSchedule(t, values);
      }
      default: throw unknown(name, "ISchedule");
    }
  }

  // ------------------------------------------------------------------ activations

  private static final String[][] ACTIVATIONS = {
    {"CUBE", "Cube"}, {"ELU", "ELU"}, {"HARDSIGMOID", "HardSigmoid"}, {"HARDTANH", "HardTanH"},
    {"IDENTITY", "Identity"}, {"LEAKYRELU", "LReLU"}, {"RATIONALTANH", "RationalTanh"}, {"RELU", "ReLU"},
    {"RELU6", "ReLU6"}, {"RRELU", "RReLU"}, {"SIGMOID", "Sigmoid"}, {"SOFTMAX", "Softmax"}, {"SOFTPLUS", "SoftPlus"},
    {"SOFTSIGN", "SoftSign"}, {"TANH", "TanH"}, {"RECTIFIEDTANH", "RectifiedTanh"}, {"SELU", "SELU"},
    {"SWISH", "Swish"}, {"THRESHOLDEDRELU", "ThresholdedReLU"}, {"GELU", "GELU"}, {"MISH", "Mish"}};

  /** An activation (the enum or an IActivation instance) as ND4J writes it. */
  static Object activation(Activation a, IActivation fn) {
    if (fn == null && a == null) {
      return null;
    }
    String simple = null;
    if (fn != null) {
      simple = fn.getClass().getSimpleName().substring("Activation".length());
    } else {
      for (String[] p : ACTIVATIONS) {
        if (p[0].equals(a.name())) {
          simple = p[1];
        }
      }
    }
    Map<String, Object> m = obj(ACT + simple);
    switch (simple) {
      case "ReLU":
        m.put("max", null);
        m.put("negativeSlope", null);
        m.put("threshold", null);
        break;
      case "ELU":
        m.put("alpha", fn != null ? get(fn, "alpha") : 1.0);
        break;
      case "LReLU":
        m.put("alpha", fn != null ? get(fn, "alpha") : 0.01);
        break;
      default:
    }
    return m;
  }

  /**
   * An activation read back: the drop-in's IActivation when it has the class, else the enum constant of
   * that name (kept as configuration; a network refuses it by name).
   */
  static Object readActivation(Object json) {
    if (json == null) {
      return null;
    }
    Map<String, Object> m = Json.obj(json, "an activation");
    String name = Json.str(m, CLASS);
    if (name.equals(ACT + "ReLU") && (m.get("max") != null || m.get("negativeSlope") != null
        || m.get("threshold") != null)) {
      throw new UnsupportedOperationException("configuration JSON: ActivationReLU with max / negativeSlope / threshold "
          + "is not in ndrt's Deeplearning4j drop-in");
    }
    if (name.startsWith(ACT)) {
      String simple = name.substring(ACT.length());
      try {
        Class<?> c = Class.forName(name);
        if (m.get("alpha") != null) {
          return c.getConstructor(double.class).newInstance(dbl(m.get("alpha"), "alpha"));
        }
        return make(c);
      } catch (ClassNotFoundException e) {
        for (String[] p : ACTIVATIONS) {
          if (p[1].equals(simple) && m.size() == 1) {
            return Activation.valueOf(p[0]);
          }
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    throw unknown(name, "IActivation");
  }

  // ------------------------------------------------------------------ weight initialisation

  private static final String[][] WEIGHT_INITS = {
    {"XAVIER", "Xavier"}, {"XAVIER_UNIFORM", "XavierUniform"}, {"RELU", "Relu"}, {"RELU_UNIFORM", "ReluUniform"},
    {"NORMAL", "Normal"}, {"UNIFORM", "Uniform"}, {"SIGMOID_UNIFORM", "SigmoidUniform"}, {"XAVIER_LEGACY", "XavierLegacy"},
    {"IDENTITY", "Identity"}, {"LECUN_UNIFORM", "LecunUniform"},
    {"VAR_SCALING_NORMAL_FAN_IN", "VarScalingNormalFanIn"}, {"VAR_SCALING_NORMAL_FAN_OUT", "VarScalingNormalFanOut"},
    {"VAR_SCALING_NORMAL_FAN_AVG", "VarScalingNormalFanAvg"}, {"VAR_SCALING_UNIFORM_FAN_IN", "VarScalingUniformFanIn"},
    {"VAR_SCALING_UNIFORM_FAN_OUT", "VarScalingUniformFanOut"},
    {"VAR_SCALING_UNIFORM_FAN_AVG", "VarScalingUniformFanAvg"}, {"LECUN_NORMAL", "Normal"}, {"XAVIER_FAN_IN", "Normal"}};

  static Object weightInit(WeightInit w, Distribution d) {
    if (d != null) {
      Map<String, Object> m = obj(WI + "Distribution");
      Map<String, Object> dm = obj(null);
      dm.put("type", d.getClass().getName());
      for (String k : new String[] {"mean", "std", "lower", "upper", "value", "numberOfTrials", "probabilityOfSuccess",
          "gain"}) {
        if (field(d.getClass(), k) != null) {
          dm.put(k, get(d, k));
        }
      }
      m.put("distribution", dm);
      return m;
    }
    if (w == null) {
      return null;
    }
    if (w == WeightInit.ZERO || w == WeightInit.ONES) {
      Map<String, Object> m = obj(WI + "Constant");
      m.put("value", w == WeightInit.ZERO ? 0.0 : 1.0);
      return m;
    }
    for (String[] p : WEIGHT_INITS) {
      if (p[0].equals(w.name())) {
        Map<String, Object> m = obj(WI + p[1]);
        if (p[1].equals("Identity") || p[1].startsWith("VarScaling")) {
          m.put("scale", null);
        }
        return m;
      }
    }
    throw new UnsupportedOperationException("configuration JSON: WeightInit." + w + " has no Deeplearning4j JSON form");
  }

  /** [WeightInit, Distribution] read back. */
  static Object[] readWeightInit(Object json) {
    if (json == null) {
      return new Object[] {null, null};
    }
    Map<String, Object> m = Json.obj(json, "weightInitFn");
    String name = Json.str(m, CLASS);
    if (name.equals(WI + "Distribution")) {
      Map<String, Object> d = Json.obj(m.get("distribution"), "distribution");
      String type = Json.str(d, "type");
      Distribution dist;
      switch (type) {
        case "org.deeplearning4j.nn.conf.distribution.NormalDistribution":
          dist = new NormalDistribution(Json.num(d, "mean"), Json.num(d, "std"));
          break;
        case "org.deeplearning4j.nn.conf.distribution.GaussianDistribution":
          dist = new GaussianDistribution(Json.num(d, "mean"), Json.num(d, "std"));
          break;
        case "org.deeplearning4j.nn.conf.distribution.UniformDistribution":
          dist = new UniformDistribution(Json.num(d, "lower"), Json.num(d, "upper"));
          break;
        case "org.deeplearning4j.nn.conf.distribution.ConstantDistribution":
          dist = new ConstantDistribution(Json.num(d, "value"));
          break;
        case "org.deeplearning4j.nn.conf.distribution.TruncatedNormalDistribution":
          dist = new TruncatedNormalDistribution(Json.num(d, "mean"), Json.num(d, "std"));
          break;
        case "org.deeplearning4j.nn.conf.distribution.LogNormalDistribution":
          dist = new LogNormalDistribution(Json.num(d, "mean"), Json.num(d, "std"));
          break;
        case "org.deeplearning4j.nn.conf.distribution.BinomialDistribution":
          dist = new BinomialDistribution((int) Json.num(d, "numberOfTrials"), Json.num(d, "probabilityOfSuccess"));
          break;
        case "org.deeplearning4j.nn.conf.distribution.OrthogonalDistribution":
          dist = new OrthogonalDistribution(Json.num(d, "gain"));
          break;
        default: throw unknown(type, "Distribution");
      }
      return new Object[] {WeightInit.DISTRIBUTION, dist};
    }
    if (name.equals(WI + "Constant")) {
      double v = Json.num(m, "value");
      if (v == 0 || v == 1) {
        return new Object[] {v == 0 ? WeightInit.ZERO : WeightInit.ONES, null};
      }
      return new Object[] {WeightInit.DISTRIBUTION, new ConstantDistribution(v)};
    }
    if (m.get("scale") != null) {
      throw new UnsupportedOperationException("configuration JSON: " + name + " with a scale is not in ndrt's "
          + "Deeplearning4j drop-in");
    }
    for (String[] p : WEIGHT_INITS) {
      if ((WI + p[1]).equals(name)) {
        return new Object[] {WeightInit.valueOf(p[0]), null};
      }
    }
    throw unknown(name, "IWeightInit");
  }

  // ------------------------------------------------------------------ dropout and regularization

  /** Deeplearning4j's dropOut(p): a Dropout keeping each value with probability p (null when unset). */
  static Object dropout(double keep) {
    if (Double.isNaN(keep)) {
      return null;
    }
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put(CLASS, DROPOUT);
    m.put("p", keep);
    m.put("helperAllowFallback", true);
    m.put("pschedule", null);
    return m;
  }

  static double readDropout(Object json) {
    if (json == null) {
      return Double.NaN;
    }
    Map<String, Object> m = Json.obj(json, "idropout");
    String name = Json.str(m, CLASS);
    if (!name.equals(DROPOUT)) {
      throw unknown(name, "IDropout");
    }
    if (m.get("pschedule") != null) {
      throw new UnsupportedOperationException("configuration JSON: Dropout with a schedule (pschedule) is not in ndrt's "
          + "Deeplearning4j drop-in");
    }
    return Json.num(m, "p");
  }

  /** Deeplearning4j's regularization list: L1, L2, then weight decay (written twice when inherited, as DL4J does). */
  static List<Object> regularization(double l1, double l2, double wd, boolean wdTwice) {
    List<Object> out = new ArrayList<>();
    if (l1 > 0) {
      out.add(reg("L1Regularization", "l1", l1));
    }
    if (l2 > 0) {
      out.add(reg("L2Regularization", "l2", l2));
    }
    for (int i = 0; wd > 0 && i < (wdTwice ? 2 : 1); ++i) {
      Map<String, Object> m = reg("WeightDecay", "coeff", wd);
      m.put("applyLR", true);
      out.add(m);
    }
    return out;
  }

  private static Map<String, Object> reg(String cls, String key, double v) {
    Map<String, Object> m = obj(REG + cls);
    Map<String, Object> s = obj("org.nd4j.linalg.schedule.FixedSchedule");
    s.put("value", v);
    m.put(key, s);
    return m;
  }

  /**
   * {l1, l2, weightDecay} of a regularization list. Identical repeated weight decays are read once (that
   * is how Deeplearning4j writes weightDecay(c) set on the network).
   */
  static double[] readRegularization(Object json) {
    double[] out = new double[3];
    if (json == null) {
      return out;
    }
    if (!(json instanceof List)) {
      throw new IllegalArgumentException("configuration JSON: regularization must be an array");
    }
    for (Object o : (List<?>) json) {
      Map<String, Object> m = Json.obj(o, "a regularization");
      String name = Json.str(m, CLASS);
      int slot;
      String key;
      switch (name) {
        case REG + "L1Regularization": slot = 0; key = "l1"; break;
        case REG + "L2Regularization": slot = 1; key = "l2"; break;
        case REG + "WeightDecay":
          slot = 2;
          key = "coeff";
          if (Boolean.FALSE.equals(m.get("applyLR"))) {
            throw new UnsupportedOperationException("configuration JSON: WeightDecay with applyLR false is not in ndrt's "
                + "Deeplearning4j drop-in (org.ndrt.nn's weight decay is multiplied by the learning rate)");
          }
          break;
        default: throw unknown(name, "Regularization");
      }
      ISchedule s = readSchedule(m.get(key));
      if (!(s instanceof FixedSchedule)) {
        throw new UnsupportedOperationException("configuration JSON: " + name + " with a " + s.getClass().getSimpleName()
            + " is not in ndrt's Deeplearning4j drop-in (fixed coefficients only)");
      }
      double v = s.valueAt(0, 0);
      if (out[slot] != 0 && out[slot] != v) {
        throw new UnsupportedOperationException("configuration JSON: two different " + name + " coefficients (" + out[slot]
            + ", " + v + ") in one layer");
      }
      out[slot] = v;
    }
    return out;
  }
}
