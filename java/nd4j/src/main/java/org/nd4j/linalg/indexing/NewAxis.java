package org.nd4j.linalg.indexing;

import org.nd4j.linalg.api.ndarray.INDArray;

/** Inserts an axis of size 1 into the result. */
public class NewAxis implements INDArrayIndex {
  @Override public long end() { return 0; }
  @Override public long offset() { return 0; }
  @Override public long length() { return 0; }
  @Override public long stride() { return 1; }
  @Override public void reverse() {}
  @Override public boolean isInterval() { return false; }
  @Override public void init(INDArray arr, long begin, int dimension) {}
  @Override public void init(INDArray arr, int dimension) {}
  @Override public void init(long begin, long end, long max) {}
  @Override public void init(long begin, long end) {}
  @Override public boolean initialized() { return true; }
  @Override public INDArrayIndex dup() { return new NewAxis(); }

  @Override
  public String toString() {
    return "NewAxis";
  }
}
