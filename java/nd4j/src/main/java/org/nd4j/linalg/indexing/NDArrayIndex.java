package org.nd4j.linalg.indexing;

import org.nd4j.linalg.api.ndarray.INDArray;

/** ND4J's index factory: point, interval, all, newAxis, indices. */
public abstract class NDArrayIndex implements INDArrayIndex {
  private NDArrayIndex() {}

  public static INDArrayIndex point(long point) {
    return new PointIndex(point);
  }

  public static INDArrayIndex all() {
    return new NDArrayIndexAll();
  }

  public static INDArrayIndex newAxis() {
    return new NewAxis();
  }

  /** Listed positions: a get with them copies. */
  public static INDArrayIndex indices(long... indices) {
    return new SpecifiedIndex(indices);
  }

  /** [begin, end). */
  public static INDArrayIndex interval(long begin, long end) {
    return interval(begin, 1, end, false);
  }

  public static INDArrayIndex interval(int begin, int end) {
    return interval((long) begin, 1, (long) end, false);
  }

  public static INDArrayIndex interval(long begin, long end, boolean inclusive) {
    return interval(begin, 1, end, inclusive);
  }

  /** begin, begin + stride, ... below end. */
  public static INDArrayIndex interval(long begin, long stride, long end) {
    return interval(begin, stride, end, false);
  }

  public static INDArrayIndex interval(int begin, int stride, int end, boolean inclusive) {
    return interval((long) begin, stride, end, inclusive);
  }

  public static INDArrayIndex interval(long begin, long stride, long end, boolean inclusive) {
    if (stride <= 0) {
      throw new IllegalArgumentException("Interval stride must be > 0: got " + stride);
    }
    if (begin > end) {
      throw new IllegalArgumentException("Interval begin (" + begin + ") must be <= end (" + end + ")");
    }
    IntervalIndex i = new IntervalIndex(inclusive, stride);
    i.init(begin, end);
    return i;
  }

  public static INDArrayIndex interval(long begin, long stride, long end, long max) {
    return interval(begin, stride, Math.min(end, max), false);
  }

  public static INDArrayIndex interval(long begin, long stride, long end, long max, boolean inclusive) {
    return interval(begin, stride, Math.min(end, max), inclusive);
  }

  /** One point per axis. */
  public static INDArrayIndex[] indexesFor(long... indices) {
    INDArrayIndex[] r = new INDArrayIndex[indices.length];
    for (int i = 0; i < indices.length; ++i) {
      r[i] = point(indices[i]);
    }
    return r;
  }

  /** [0, shape[i]) on every axis. */
  public static INDArrayIndex[] createCoveringShape(long[] shape) {
    INDArrayIndex[] r = new INDArrayIndex[shape.length];
    for (int i = 0; i < shape.length; ++i) {
      r[i] = interval(0, 1, shape[i], false);
    }
    return r;
  }

  public static INDArrayIndex[] createCoveringShape(int[] shape) {
    INDArrayIndex[] r = new INDArrayIndex[shape.length];
    for (int i = 0; i < shape.length; ++i) {
      r[i] = interval(0, 1, shape[i], false);
    }
    return r;
  }

  /** all() for every axis of {@code arr}. */
  public static INDArrayIndex[] allFor(INDArray arr) {
    INDArrayIndex[] r = new INDArrayIndex[arr.rank()];
    for (int i = 0; i < r.length; ++i) {
      r[i] = all();
    }
    return r;
  }

  public static INDArrayIndex[] nTimes(INDArrayIndex copy, int n) {
    INDArrayIndex[] r = new INDArrayIndex[n];
    for (int i = 0; i < n; ++i) {
      r[i] = copy.dup();
    }
    return r;
  }

  public static int numPoints(INDArrayIndex... indexes) {
    int n = 0;
    for (INDArrayIndex i : indexes) {
      n += i instanceof PointIndex ? 1 : 0;
    }
    return n;
  }

  public static int numNewAxis(INDArrayIndex... indexes) {
    int n = 0;
    for (INDArrayIndex i : indexes) {
      n += i instanceof NewAxis ? 1 : 0;
    }
    return n;
  }
}
