package org.deeplearning4j.datasets.datavec;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.datavec.api.io.WritableConverter;
import org.datavec.api.records.Record;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.records.reader.RecordReader;
import org.datavec.api.writable.Writable;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.ndrt.dl4j.datasets.RecordBatches;

/**
 * Minibatches of a DataVec RecordReader's records, as Deeplearning4j's RecordReaderDataSetIterator:
 * features f32 [mb, columns] (or, for a record whose only feature is an NDArrayWritable such as an
 * image, that array stacked along dimension 0: [mb, c, h, w]); labels one-hot f32 [mb, numClasses]
 * for classification, or the label columns f32 [mb, n] for regression; when no label is asked for,
 * a copy of the features (as Deeplearning4j does).
 *
 * <p>Label index -1 with a number of classes (the two-argument constructor over an ImageRecordReader,
 * whose getLabels() gives the classes) means "the last column", as in Deeplearning4j. Label columns
 * in the middle of a record are allowed: the features are the columns before and after them.
 *
 * <p>A class index outside 0..numClasses-1 fails with an IllegalStateException naming the record
 * (its number since the last reset, and its metadata location when the reader gives one).
 */
public class RecordReaderDataSetIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;

  protected RecordReader recordReader;
  protected WritableConverter converter;
  protected int batchSize;
  protected int maxNumBatches;
  protected int batchNum;
  protected int labelIndex;
  protected int labelIndexTo;
  protected int numPossibleLabels;
  protected boolean regression;
  protected DataSetPreProcessor preProcessor;
  protected boolean collectMetaData;
  private long recordsRead; // since the last reset: names a bad record
  private DataSet peeked; // a batch read ahead by inputColumns()/totalOutcomes()

  /** Features only, or (when the reader knows its labels, e.g. an ImageRecordReader) the last column as class. */
  public RecordReaderDataSetIterator(RecordReader recordReader, int batchSize) {
    this(recordReader, null, batchSize, -1, -1,
        recordReader.getLabels() == null ? -1 : recordReader.getLabels().size(), -1, false);
  }

  /** Classification: column {@code labelIndex} holds a class 0..numPossibleLabels-1. */
  public RecordReaderDataSetIterator(RecordReader recordReader, int batchSize, int labelIndex, int numPossibleLabels) {
    this(recordReader, null, batchSize, labelIndex, labelIndex, numPossibleLabels, -1, false);
  }

  /** Classification, stopping after {@code maxNumBatches} minibatches per epoch. */
  public RecordReaderDataSetIterator(RecordReader recordReader, int batchSize, int labelIndex, int numPossibleLabels,
      int maxNumBatches) {
    this(recordReader, null, batchSize, labelIndex, labelIndex, numPossibleLabels, maxNumBatches, false);
  }

  /** Regression: columns labelIndexFrom..labelIndexTo (inclusive) are the targets. */
  public RecordReaderDataSetIterator(RecordReader recordReader, int batchSize, int labelIndexFrom, int labelIndexTo,
      boolean regression) {
    this(recordReader, null, batchSize, labelIndexFrom, labelIndexTo, -1, -1, regression);
    if (!regression) {
      throw new IllegalArgumentException("This constructor is only for creating regression iterators. If you're doing "
          + "classification you need to use another constructor that (implicitly) specifies numPossibleLabels");
    }
  }

  /** Deeplearning4j's full form (a null converter leaves the writables as they are). */
  public RecordReaderDataSetIterator(RecordReader recordReader, WritableConverter converter, int batchSize,
      int labelIndexFrom, int labelIndexTo, int numPossibleLabels, int maxNumBatches, boolean regression) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("RecordReaderDataSetIterator: batch size must be > 0, got " + batchSize);
    }
    if (!regression && labelIndexFrom >= 0 && numPossibleLabels < 1) {
      throw new IllegalArgumentException("RecordReaderDataSetIterator: label index " + labelIndexFrom
          + " given for classification but numPossibleLabels is " + numPossibleLabels + " (must be >= 1)");
    }
    if (regression && (labelIndexFrom < 0 || labelIndexTo < labelIndexFrom)) {
      throw new IllegalArgumentException("RecordReaderDataSetIterator: regression needs 0 <= labelIndexFrom <= "
          + "labelIndexTo, got " + labelIndexFrom + ".." + labelIndexTo);
    }
    this.recordReader = recordReader;
    this.converter = converter;
    this.batchSize = batchSize;
    this.labelIndex = labelIndexFrom;
    this.labelIndexTo = labelIndexTo;
    this.numPossibleLabels = numPossibleLabels;
    this.maxNumBatches = maxNumBatches;
    this.regression = regression;
  }

  protected RecordReaderDataSetIterator(Builder b) {
    this(b.recordReader, b.converter, b.batchSize, b.labelIndex, b.labelIndexTo, b.numClasses, b.maxNumBatches,
        b.regression);
    this.preProcessor = b.preProcessor;
    this.collectMetaData = b.collectMetaData;
  }

  public void setCollectMetaData(boolean collectMetaData) {
    this.collectMetaData = collectMetaData;
  }

  public boolean isCollectMetaData() {
    return collectMetaData;
  }

  public RecordReader getRecordReader() {
    return recordReader;
  }

  @Override
  public boolean hasNext() {
    return peeked != null
        || (recordReader.hasNext() && (maxNumBatches < 0 || batchNum < maxNumBatches));
  }

  @Override
  public DataSet next() {
    return next(batchSize);
  }

  @Override
  public DataSet next(int num) {
    if (peeked != null) {
      DataSet ds = peeked;
      peeked = null;
      return ds;
    }
    if (!hasNext()) {
      throw new NoSuchElementException("RecordReaderDataSetIterator: no more records (call reset())");
    }
    List<List<Writable>> records = new ArrayList<>(num);
    List<Serializable> meta = collectMetaData ? new ArrayList<>(num) : null;
    long first = recordsRead;
    while (records.size() < num && recordReader.hasNext()) {
      if (collectMetaData) {
        Record r = recordReader.nextRecord();
        records.add(r.getRecord());
        meta.add(r.getMetaData());
      } else {
        records.add(recordReader.next());
      }
      recordsRead++;
    }
    batchNum++;
    return toDataSet(records, meta, first);
  }

  /** Converts records (the first being record number {@code first} since the reset) into a minibatch. */
  private DataSet toDataSet(List<List<Writable>> records, List<Serializable> meta, long first) {
    if (converter != null) {
      records = RecordBatches.convert(records, converter);
    }
    if (labelIndex < 0 && numPossibleLabels >= 1 && !records.isEmpty()) {
      labelIndex = records.get(0).size() - 1; // Deeplearning4j's "-1 = the last column"
      labelIndexTo = labelIndex;
    }
    boolean hasLabels = labelIndex >= 0 && (regression || numPossibleLabels >= 1);
    DataSet ds = RecordBatches.toDataSet(records, hasLabels ? labelIndex : -1, hasLabels ? labelIndexTo : -1,
        regression ? -1 : numPossibleLabels, first, meta);
    if (recordReader.getLabels() != null) {
      ds.setLabelNames(recordReader.getLabels());
    }
    if (preProcessor != null) {
      preProcessor.preProcess(ds);
    }
    return ds;
  }

  /** The records behind the metadata (from {@code collectMetaData}), as one minibatch. */
  public DataSet loadFromMetaData(RecordMetaData recordMetaData) throws IOException {
    return loadFromMetaData(java.util.Collections.singletonList(recordMetaData));
  }

  public DataSet loadFromMetaData(List<RecordMetaData> list) throws IOException {
    List<List<Writable>> records = new ArrayList<>();
    List<Serializable> meta = new ArrayList<>();
    for (Record r : recordReader.loadFromMetaData(list)) {
      records.add(r.getRecord());
      meta.add(r.getMetaData());
    }
    return toDataSet(records, meta, 0);
  }

  @Override
  public int inputColumns() {
    return (int) peek().getFeatures().size(1);
  }

  @Override
  public int totalOutcomes() {
    if (!regression && numPossibleLabels >= 1) {
      return numPossibleLabels;
    }
    DataSet ds = peek();
    return ds.getLabels() == null ? 0 : (int) ds.getLabels().size(1);
  }

  private DataSet peek() {
    if (peeked == null) {
      peeked = next();
    }
    return peeked;
  }

  @Override public boolean resetSupported() { return recordReader.resetSupported(); }
  @Override public boolean asyncSupported() { return true; }

  @Override
  public void reset() {
    batchNum = 0;
    recordsRead = 0;
    peeked = null;
    recordReader.reset();
  }

  @Override public int batch() { return batchSize; }
  @Override public void setPreProcessor(DataSetPreProcessor preProcessor) { this.preProcessor = preProcessor; }
  @Override public DataSetPreProcessor getPreProcessor() { return preProcessor; }
  @Override public List<String> getLabels() { return recordReader.getLabels(); }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("RecordReaderDataSetIterator.remove");
  }

  /** Deeplearning4j's builder: classification(labelIndex, numClasses) or regression(from[, to]). */
  public static class Builder {
    protected RecordReader recordReader;
    protected WritableConverter converter;
    protected int batchSize;
    protected int maxNumBatches = -1;
    protected int labelIndex = -1;
    protected int labelIndexTo = -1;
    protected int numClasses = -1;
    protected boolean regression;
    protected DataSetPreProcessor preProcessor;
    protected boolean collectMetaData;

    public Builder(RecordReader rr, int batchSize) {
      this.recordReader = rr;
      this.batchSize = batchSize;
    }

    public Builder writableConverter(WritableConverter converter) {
      this.converter = converter;
      return this;
    }

    public Builder maxNumBatches(int maxNumBatches) {
      this.maxNumBatches = maxNumBatches;
      return this;
    }

    public Builder regression(int labelIndex) {
      return regression(labelIndex, labelIndex);
    }

    public Builder regression(int labelIndexFrom, int labelIndexTo) {
      this.labelIndex = labelIndexFrom;
      this.labelIndexTo = labelIndexTo;
      this.regression = true;
      this.numClasses = -1;
      return this;
    }

    public Builder classification(int labelIndex, int numClasses) {
      this.labelIndex = labelIndex;
      this.labelIndexTo = labelIndex;
      this.numClasses = numClasses;
      this.regression = false;
      return this;
    }

    public Builder preProcessor(DataSetPreProcessor preProcessor) {
      this.preProcessor = preProcessor;
      return this;
    }

    public Builder collectMetaData(boolean collectMetaData) {
      this.collectMetaData = collectMetaData;
      return this;
    }

    public RecordReaderDataSetIterator build() {
      return new RecordReaderDataSetIterator(this);
    }
  }
}
