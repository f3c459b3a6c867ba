package org.nd4j.linalg.indexing;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Listed positions along an axis (a get with one gives a copy, not a view, as in ND4J). */
public class SpecifiedIndex implements INDArrayIndex {
  private final long[] indices;

  public SpecifiedIndex(long... indices) {
    this.indices = indices.clone();
  }

  public SpecifiedIndex(int... indices) {
    this.indices = Arrays.stream(indices).asLongStream().toArray();
  }

  public long[] getIndexes() {
    return indices.clone();
  }

  @Override public long end() { return indices.length == 0 ? 0 : indices[indices.length - 1] + 1; }
  @Override public long offset() { return indices.length == 0 ? 0 : indices[0]; }
  @Override public long length() { return indices.length; }
  @Override public long stride() { return 1; }
  @Override public void reverse() { throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement SpecifiedIndex.reverse"); }
  @Override public boolean isInterval() { return false; }
  @Override public void init(INDArray arr, long begin, int dimension) {}
  @Override public void init(INDArray arr, int dimension) {}
  @Override public void init(long begin, long end, long max) {}
  @Override public void init(long begin, long end) {}
  @Override public boolean initialized() { return true; }
  @Override public INDArrayIndex dup() { return new SpecifiedIndex(indices); }

  @Override
  public String toString() {
    return "SpecifiedIndex(" + Arrays.toString(indices) + ")";
  }
}
