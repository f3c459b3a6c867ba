package org.nd4j.linalg.indexing;

import org.nd4j.linalg.api.ndarray.INDArray;

/** One position along an axis; the axis is dropped from the result. */
public class PointIndex implements INDArrayIndex {
  private long point;

  public PointIndex(long point) {
    this.point = point;
  }

  @Override public long end() { return point + 1; }
  @Override public long offset() { return point; }
  @Override public long length() { return 1; }
  @Override public long stride() { return 1; }
  @Override public void reverse() {}
  @Override public boolean isInterval() { return false; }
  @Override public void init(INDArray arr, long begin, int dimension) { point = begin; }
  @Override public void init(INDArray arr, int dimension) {}
  @Override public void init(long begin, long end, long max) { point = begin; }
  @Override public void init(long begin, long end) { point = begin; }
  @Override public boolean initialized() { return true; }
  @Override public INDArrayIndex dup() { return new PointIndex(point); }

  @Override
  public String toString() {
    return "Point(" + point + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PointIndex && ((PointIndex) o).point == point;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(point);
  }
}
