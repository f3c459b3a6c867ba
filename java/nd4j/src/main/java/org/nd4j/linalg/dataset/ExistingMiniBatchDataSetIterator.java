package org.nd4j.linalg.dataset;

import java.io.File;
import java.util.List;
import java.util.NoSuchElementException;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * ND4J's ExistingMiniBatchDataSetIterator: minibatches saved one per file ({@code DataSet.save}) as
 * {@code rootDir/String.format(pattern, i)} for i = 0, 1, ... while the file exists, each read back
 * with {@code DataSet.load}. The files are counted when the iterator is made, as in ND4J.
 */
public class ExistingMiniBatchDataSetIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;
  /** ND4J's default file name pattern. */
  public static final String DEFAULT_PATTERN = "dataset-%d.bin";

  private final File rootDir;
  private final String pattern;
  private final int totalBatches;
  private int currIdx;
  private DataSetPreProcessor preProcessor;

  public ExistingMiniBatchDataSetIterator(File rootDir) {
    this(rootDir, DEFAULT_PATTERN);
  }

  public ExistingMiniBatchDataSetIterator(File rootDir, String pattern) {
    this.rootDir = rootDir;
    this.pattern = pattern;
    int n = 0;
    while (new File(rootDir, String.format(pattern, n)).isFile()) {
      n++;
    }
    totalBatches = n;
  }

  @Override
  public boolean hasNext() {
    return currIdx < totalBatches;
  }

  @Override
  public DataSet next() {
    if (!hasNext()) {
      throw new NoSuchElementException("ExistingMiniBatchDataSetIterator: no more files in " + rootDir);
    }
    DataSet ds = new DataSet();
    ds.load(new File(rootDir, String.format(pattern, currIdx++)));
    if (preProcessor != null) {
      preProcessor.preProcess(ds);
    }
    return ds;
  }

  @Override
  public DataSet next(int num) {
    throw new UnsupportedOperationException("ExistingMiniBatchDataSetIterator.next(num): each file is one minibatch");
  }

  @Override public int inputColumns() { throw new UnsupportedOperationException("ExistingMiniBatchDataSetIterator.inputColumns"); }
  @Override public int totalOutcomes() { throw new UnsupportedOperationException("ExistingMiniBatchDataSetIterator.totalOutcomes"); }
  @Override public boolean resetSupported() { return true; }
  @Override public boolean asyncSupported() { return true; }
  @Override public void reset() { currIdx = 0; }
  @Override public int batch() { throw new UnsupportedOperationException("ExistingMiniBatchDataSetIterator.batch: files may hold any number of examples"); }
  @Override public void setPreProcessor(DataSetPreProcessor p) { preProcessor = p; }
  @Override public DataSetPreProcessor getPreProcessor() { return preProcessor; }
  @Override public List<String> getLabels() { return null; }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("ExistingMiniBatchDataSetIterator.remove");
  }
}
