package org.nd4j.linalg.dataset;

import java.util.List;
import java.util.NoSuchElementException;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * Minibatches of a DataSet in memory, as views of its arrays, as ND4J's ViewIterator (the
 * preprocessor, when set, runs on each minibatch: on the view, so on the data set's storage).
 */
public class ViewIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;
  private final DataSet data;
  private final int batchSize;
  private int cursor;
  private DataSetPreProcessor preProcessor;

  public ViewIterator(DataSet data, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("Batch size must be > 0: got " + batchSize);
    }
    this.data = data;
    this.batchSize = batchSize;
  }

  @Override
  public DataSet next(int num) {
    if (!hasNext()) {
      throw new NoSuchElementException("No next element");
    }
    int to = Math.min(cursor + num, data.numExamples());
    DataSet ds = (DataSet) data.getRange(cursor, to);
    cursor = to;
    if (preProcessor != null) {
      preProcessor.preProcess(ds);
    }
    return ds;
  }

  @Override public DataSet next() { return next(batchSize); }
  @Override public boolean hasNext() { return cursor < data.numExamples(); }
  @Override public int inputColumns() { return (int) data.getFeatures().size(1); }
  @Override public int totalOutcomes() { return (int) data.getLabels().size(1); }
  @Override public boolean resetSupported() { return true; }
  @Override public boolean asyncSupported() { return false; }
  @Override public void reset() { cursor = 0; }
  @Override public int batch() { return batchSize; }
  @Override public void setPreProcessor(DataSetPreProcessor p) { this.preProcessor = p; }
  @Override public DataSetPreProcessor getPreProcessor() { return preProcessor; }
  @Override public List<String> getLabels() { return data.getLabelNamesList(); }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("ViewIterator.remove");
  }
}
