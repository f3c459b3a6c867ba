package org.nd4j.linalg.indexing;

import org.nd4j.linalg.api.ndarray.INDArray;

/** One entry of an index into an array: a point, an interval, all, a new axis or listed indices. */
public interface INDArrayIndex {
  /** The last position (exclusive) this index reaches. */
  long end();

  /** The first position. */
  long offset();

  /** How many positions it selects (1 for a point). */
  long length();

  long stride();

  void reverse();

  boolean isInterval();

  void init(INDArray arr, long begin, int dimension);

  void init(INDArray arr, int dimension);

  void init(long begin, long end, long max);

  void init(long begin, long end);

  boolean initialized();

  INDArrayIndex dup();
}
