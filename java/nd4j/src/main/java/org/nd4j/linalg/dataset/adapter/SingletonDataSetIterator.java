package org.nd4j.linalg.dataset.adapter;

import java.util.List;
import java.util.NoSuchElementException;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/** One DataSet as a one-minibatch iterator, as ND4J's SingletonDataSetIterator. */
public class SingletonDataSetIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;
  private final DataSet dataSet;
  private boolean hasNext = true;
  private boolean preprocessed;
  private DataSetPreProcessor preProcessor;

  public SingletonDataSetIterator(DataSet multiDataSet) {
    this.dataSet = multiDataSet;
  }

  @Override
  public DataSet next() {
    if (!hasNext) {
      throw new NoSuchElementException("No elements remaining");
    }
    hasNext = false;
    if (preProcessor != null && !preprocessed) {
      preProcessor.preProcess(dataSet);
      preprocessed = true; // once: the same object comes back after reset
    }
    return dataSet;
  }

  @Override
  public DataSet next(int num) {
    throw new UnsupportedOperationException("SingletonDataSetIterator.next(int): not supported");
  }

  @Override public boolean hasNext() { return hasNext; }
  @Override public int inputColumns() { return (int) dataSet.getFeatures().size(1); }
  @Override public int totalOutcomes() { return (int) dataSet.getLabels().size(1); }
  @Override public boolean resetSupported() { return true; }
  @Override public boolean asyncSupported() { return false; }
  @Override public void reset() { hasNext = true; }
  @Override public int batch() { return dataSet.numExamples(); }
  @Override public List<String> getLabels() { return null; }
  @Override public DataSetPreProcessor getPreProcessor() { return preProcessor; }
  @Override public void setPreProcessor(DataSetPreProcessor p) { this.preProcessor = p; }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("SingletonDataSetIterator.remove");
  }
}
