package org.deeplearning4j.datasets.iterator.utilty;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NoSuchElementException;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * Minibatches from a list of DataSets (usually one example each), as Deeplearning4j's
 * ListDataSetIterator (its package name "utilty" is Deeplearning4j's spelling): each minibatch is
 * {@code batch} consecutive list elements merged (DataSet.merge, a copy); the last may be smaller.
 */
public class ListDataSetIterator<T extends DataSet> implements DataSetIterator {
  private static final long serialVersionUID = 1L;
  private final List<T> list;
  private final int batch;
  private int curr;
  private DataSetPreProcessor preProcessor;

  /** Minibatches of {@code batch} elements. */
  public ListDataSetIterator(Collection<T> coll, int batch) {
    if (batch <= 0) {
      throw new IllegalArgumentException("ListDataSetIterator: batch must be > 0, got " + batch);
    }
    this.list = new ArrayList<>(coll);
    this.batch = batch;
  }

  /** Minibatches of 5 elements (Deeplearning4j's default). */
  public ListDataSetIterator(Collection<T> coll) {
    this(coll, 5);
  }

  @Override public synchronized boolean hasNext() { return curr < list.size(); }
  @Override public synchronized DataSet next() { return next(batch); }

  @Override
  public synchronized DataSet next(int num) {
    if (!hasNext()) {
      throw new NoSuchElementException("ListDataSetIterator: no more elements (call reset())");
    }
    int end = Math.min(curr + num, list.size());
    List<DataSet> part = new ArrayList<>(list.subList(curr, end));
    curr = end;
    DataSet d = part.size() == 1 ? part.get(0).copy() : DataSet.merge(part);
    if (preProcessor != null) {
      preProcessor.preProcess(d);
    }
    return d;
  }

  @Override public int inputColumns() { return (int) list.get(0).getFeatures().size(1); }
  @Override public int totalOutcomes() { return (int) list.get(0).getLabels().size(1); }
  @Override public boolean resetSupported() { return true; }
  @Override public boolean asyncSupported() { return false; }
  @Override public synchronized void reset() { curr = 0; }
  @Override public int batch() { return batch; }
  @Override public void setPreProcessor(DataSetPreProcessor preProcessor) { this.preProcessor = preProcessor; }
  @Override public DataSetPreProcessor getPreProcessor() { return preProcessor; }
  @Override public List<String> getLabels() { return null; }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("ListDataSetIterator.remove");
  }
}
