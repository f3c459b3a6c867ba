package org.nd4j.common.util;

import java.util.Arrays;

/** ND4J's helpers on Java arrays (shapes, conversions, comparisons); they never touch INDArrays. */
public class ArrayUtil {
  private ArrayUtil() {}

  /** Same length and every pair within 1e-6. */
  public static boolean equals(float[] data, double[] data2) {
    if (data.length != data2.length) {
      return false;
    }
    for (int i = 0; i < data.length; ++i) {
      if (Math.abs(data[i] - data2[i]) > 1e-6) {
        return false;
      }
    }
    return true;
  }

  public static boolean equals(float[] data, float[] data2) {
    return Arrays.equals(data, data2);
  }

  public static int prod(int... mult) {
    int p = 1;
    for (int m : mult) {
      p = Math.multiplyExact(p, m);
    }
    return p;
  }

  public static int prod(long... mult) {
    return Math.toIntExact(prodLong(mult));
  }

  public static long prodLong(long... mult) {
    long p = 1;
    for (long m : mult) {
      p = Math.multiplyExact(p, m);
    }
    return p;
  }

  public static long prodLong(int... mult) {
    long p = 1;
    for (int m : mult) {
      p = Math.multiplyExact(p, (long) m);
    }
    return p;
  }

  public static int sum(int[] add) {
    int s = 0;
    for (int a : add) {
      s += a;
    }
    return s;
  }

  public static long sumLong(long... add) {
    long s = 0;
    for (long a : add) {
      s += a;
    }
    return s;
  }

  public static int[] toInts(long[] array) {
    int[] r = new int[array.length];
    for (int i = 0; i < r.length; ++i) {
      r[i] = Math.toIntExact(array[i]);
    }
    return r;
  }

  public static long[] toLongArray(int[] array) {
    long[] r = new long[array.length];
    for (int i = 0; i < r.length; ++i) {
      r[i] = array[i];
    }
    return r;
  }

  public static double[] toDoubles(int[] ints) {
    double[] r = new double[ints.length];
    for (int i = 0; i < r.length; ++i) {
      r[i] = ints[i];
    }
    return r;
  }

  public static double[] toDoubles(float[] floats) {
    double[] r = new double[floats.length];
    for (int i = 0; i < r.length; ++i) {
      r[i] = floats[i];
    }
    return r;
  }

  public static float[] toFloats(double[] doubles) {
    float[] r = new float[doubles.length];
    for (int i = 0; i < r.length; ++i) {
      r[i] = (float) doubles[i];
    }
    return r;
  }

  public static float[] toFloats(int[] ints) {
    float[] r = new float[ints.length];
    for (int i = 0; i < r.length; ++i) {
      r[i] = ints[i];
    }
    return r;
  }

  /** from, from + 1, ... below to. */
  public static int[] range(int from, int to) {
    int[] r = new int[Math.max(0, to - from)];
    for (int i = 0; i < r.length; ++i) {
      r[i] = from + i;
    }
    return r;
  }

  public static long[] range(long from, long to) {
    long[] r = new long[(int) Math.max(0, to - from)];
    for (int i = 0; i < r.length; ++i) {
      r[i] = from + i;
    }
    return r;
  }

  public static int[] reverseCopy(int[] e) {
    int[] r = new int[e.length];
    for (int i = 0; i < e.length; ++i) {
      r[i] = e[e.length - 1 - i];
    }
    return r;
  }

  public static long[] reverseCopy(long[] e) {
    long[] r = new long[e.length];
    for (int i = 0; i < e.length; ++i) {
      r[i] = e[e.length - 1 - i];
    }
    return r;
  }

  public static double[] flatten(double[][] arr) {
    return Arrays.stream(arr).flatMapToDouble(Arrays::stream).toArray();
  }

  public static int[] flatten(int[][] arr) {
    return Arrays.stream(arr).flatMapToInt(Arrays::stream).toArray();
  }

  public static long[] flatten(long[][] arr) {
    return Arrays.stream(arr).flatMapToLong(Arrays::stream).toArray();
  }

  public static float[] flatten(float[][] arr) {
    int n = 0;
    for (float[] a : arr) {
      n += a.length;
    }
    float[] r = new float[n];
    int k = 0;
    for (float[] a : arr) {
      System.arraycopy(a, 0, r, k, a.length);
      k += a.length;
    }
    return r;
  }

  public static int[] copy(int[] copy) {
    return copy.clone();
  }

  public static long[] copy(long[] copy) {
    return copy.clone();
  }

  /** Row-major strides of a shape. */
  public static long[] calcStrides(long[] shape) {
    long[] s = new long[shape.length];
    long st = 1;
    for (int i = shape.length - 1; i >= 0; --i) {
      s[i] = st;
      st *= shape[i];
    }
    return s;
  }

  public static int argMax(int[] in) {
    int best = 0;
    for (int i = 1; i < in.length; ++i) {
      if (in[i] > in[best]) {
        best = i;
      }
    }
    return best;
  }

  public static int argMax(double[] in) {
    int best = 0;
    for (int i = 1; i < in.length; ++i) {
      if (in[i] > in[best]) {
        best = i;
      }
    }
    return best;
  }
}
