package org.nd4j.linalg.indexing;

import org.nd4j.linalg.api.ndarray.INDArray;

/** Every position along an axis. */
public class NDArrayIndexAll extends IntervalIndex {
  public NDArrayIndexAll() {
    super(false, 1);
  }

  @Override
  public INDArrayIndex dup() {
    return new NDArrayIndexAll();
  }

  @Override
  public void init(INDArray arr, long begin, int dimension) {
    init(0, arr.size(dimension));
  }

  @Override
  public String toString() {
    return "all()";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NDArrayIndexAll;
  }

  @Override
  public int hashCode() {
    return 1;
  }
}
