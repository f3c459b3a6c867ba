package org.ndrt.data;

import java.util.Iterator;

/**
 * Minibatches of a ComputationGraph's inputs and labels, as {@link DataSetIterator} for one input:
 * the caller closes each MultiDataSet it takes; {@link #reset()} starts a new pass.
 */
public interface MultiDataSetIterator extends Iterator<MultiDataSet>, AutoCloseable {
  /** Starts again from the first minibatch. */
  void reset();

  @Override
  default void close() {}
}
