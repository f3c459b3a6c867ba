package org.ndrt.data;

import java.util.Iterator;

/**
 * Minibatches for one epoch; {@link #reset()} starts the next epoch (an iterator that shuffles
 * reshuffles there). The caller owns each DataSet that {@link #next()} returns and closes it.
 */
public interface DataSetIterator extends Iterator<DataSet>, AutoCloseable {
  /** Starts over (the next epoch). */
  void reset();

  /** Examples per minibatch (the last one of an epoch may be smaller). */
  int batchSize();

  /** Examples in one epoch. */
  long numExamples();

  /** Number of classes (the labels' width). */
  int totalOutcomes();

  /** Releases threads or buffers the iterator holds; the default holds none. */
  @Override
  default void close() {}
}
