package org.ndrt.nd4j;

import java.util.Arrays;
import org.nd4j.linalg.exception.ND4JIllegalStateException;

/** Shape arithmetic shared by the drop-in's classes (on shapes only: never on elements). */
public final class Shapes {
  private Shapes() {}

  public static long prod(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    return n;
  }

  public static long[] toLong(int[] a) {
    long[] r = new long[a.length];
    for (int i = 0; i < a.length; ++i) {
      r[i] = a[i];
    }
    return r;
  }

  public static int[] toInt(long[] a) {
    int[] r = new int[a.length];
    for (int i = 0; i < a.length; ++i) {
      r[i] = Math.toIntExact(a[i]);
    }
    return r;
  }

  /** numpy's broadcast of two shapes, or null when they do not broadcast. */
  public static long[] broadcast(long[] a, long[] b) {
    int r = Math.max(a.length, b.length);
    long[] out = new long[r];
    for (int i = 0; i < r; ++i) {
      long x = i < r - a.length ? 1 : a[i - (r - a.length)];
      long y = i < r - b.length ? 1 : b[i - (r - b.length)];
      if (x != y && x != 1 && y != 1) {
        return null;
      }
      out[i] = x == 1 ? y : x;
    }
    return out;
  }

  /** Dimensions as runtime axes: negative ones count from the end; out of range is ND4J's error. */
  public static long[] axes(int[] dims, int rank) {
    long[] a = new long[dims.length];
    for (int i = 0; i < dims.length; ++i) {
      int d = dims[i] < 0 ? dims[i] + rank : dims[i];
      if (d < 0 || d >= Math.max(rank, 1)) {
        throw new ND4JIllegalStateException("Axis array " + Arrays.toString(dims)
            + " contains values above array rank (rank=" + rank + ")");
      }
      a[i] = d;
    }
    return a;
  }

  /** Index of {@code linear} in a shape traversed in {@code order} ('c': last axis fastest). */
  public static long[] unravel(long linear, long[] shape, char order) {
    long[] idx = new long[shape.length];
    long rest = linear;
    if (order == 'f') {
      for (int i = 0; i < shape.length; ++i) {
        idx[i] = rest % shape[i];
        rest /= shape[i];
      }
    } else {
      for (int i = shape.length - 1; i >= 0; --i) {
        idx[i] = rest % shape[i];
        rest /= shape[i];
      }
    }
    return idx;
  }

  public static long[] reversed(long[] a) {
    long[] r = new long[a.length];
    for (int i = 0; i < a.length; ++i) {
      r[i] = a[a.length - 1 - i];
    }
    return r;
  }

  public static int[] reversedAxes(int rank) {
    int[] p = new int[rank];
    for (int i = 0; i < rank; ++i) {
      p[i] = rank - 1 - i;
    }
    return p;
  }
}
