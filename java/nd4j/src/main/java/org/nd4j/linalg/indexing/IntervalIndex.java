package org.nd4j.linalg.indexing;

import org.nd4j.linalg.api.ndarray.INDArray;

/** begin, begin + stride, ... up to end (exclusive, or inclusive when so made). */
public class IntervalIndex implements INDArrayIndex {
  protected long begin;
  protected long end;
  protected boolean inclusive;
  protected long stride = 1;
  private boolean initialized;

  public IntervalIndex(boolean inclusive, long stride) {
    this.inclusive = inclusive;
    this.stride = stride;
  }

  /** The end as given, before inclusive is applied. */
  public long rawEnd() {
    return end;
  }

  public boolean isInclusive() {
    return inclusive;
  }

  @Override public long end() { return inclusive ? end + 1 : end; }
  @Override public long offset() { return begin; }

  @Override
  public long length() {
    long e = end();
    return e <= begin ? 0 : (e - begin + stride - 1) / stride;
  }

  @Override public long stride() { return stride; }
  @Override public void reverse() { throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement IntervalIndex.reverse"); }
  @Override public boolean isInterval() { return true; }
  @Override public void init(INDArray arr, long begin, int dimension) { init(begin, arr.size(dimension)); }
  @Override public void init(INDArray arr, int dimension) { init(0, arr.size(dimension)); }
  @Override public void init(long begin, long end, long max) { init(begin, end); }

  @Override
  public void init(long begin, long end) {
    if (begin < 0 || end < 0) {
      throw new IllegalArgumentException("Interval bounds must be >= 0: got begin " + begin + ", end " + end);
    }
    this.begin = begin;
    this.end = end;
    this.initialized = true;
  }

  @Override public boolean initialized() { return initialized; }

  @Override
  public INDArrayIndex dup() {
    IntervalIndex i = new IntervalIndex(inclusive, stride);
    i.init(begin, end);
    return i;
  }

  @Override
  public String toString() {
    return "Interval(b=" + begin + ",e=" + end + ",s=" + stride + (inclusive ? ",inclusive" : "") + ")";
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof IntervalIndex)) {
      return false;
    }
    IntervalIndex i = (IntervalIndex) o;
    return begin == i.begin && end == i.end && stride == i.stride && inclusive == i.inclusive;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(begin * 31 + end) * 31 + Long.hashCode(stride);
  }
}
