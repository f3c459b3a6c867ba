package org.deeplearning4j.datasets.datavec;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import org.datavec.api.records.SequenceRecord;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.records.reader.SequenceRecordReader;
import org.datavec.api.writable.Writable;
import org.deeplearning4j.datasets.datavec.exception.ZeroLengthSequenceException;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.dl4j.datasets.RecordBatches;

/**
 * Minibatches of sequences, as Deeplearning4j's SequenceRecordReaderDataSetIterator: features f32
 * [mb, nIn, T], labels f32 [mb, nOut, T] (one-hot over numPossibleLabels for classification), and,
 * where sequences of a minibatch differ in length, masks f32 [mb, T] (1 = a real step, 0 = padding).
 *
 * <p>Either two readers (features; labels, one class index or regression values per step) or one
 * reader whose column {@code labelIndex} is the label. T is the longest sequence of the minibatch,
 * features and labels together. With two readers, {@link AlignmentMode#EQUAL_LENGTH} needs each
 * example's features and labels equally long, and all sequences of a minibatch too (else an
 * exception, as in Deeplearning4j); ALIGN_START starts an example's features and labels at step 0;
 * ALIGN_END makes the shorter of the two end at the last step of the longer (many-to-one: the one
 * label step under the last feature step), the example starting at step 0. With one reader, sequences
 * of different lengths are padded at the end. Examples shorter than T are padded after their end; a
 * mask exists for features (labels) only when some features (labels) sequence is shorter than T.
 */
public class SequenceRecordReaderDataSetIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;

  /** How features and labels sequences of different lengths are placed on the time axis. */
  public enum AlignmentMode {
    EQUAL_LENGTH,
    ALIGN_START,
    ALIGN_END
  }

  private final SequenceRecordReader featuresReader;
  private final SequenceRecordReader labelsReader; // null: one reader, labels at labelIndex
  private final int miniBatchSize;
  private final int numPossibleLabels;
  private final int labelIndex;
  private final boolean regression;
  private final AlignmentMode alignmentMode;
  private DataSetPreProcessor preProcessor;
  private boolean collectMetaData;
  private long sequencesRead;
  private DataSet peeked;

  public SequenceRecordReaderDataSetIterator(SequenceRecordReader featuresReader, SequenceRecordReader labels,
      int miniBatchSize, int numPossibleLabels) {
    this(featuresReader, labels, miniBatchSize, numPossibleLabels, false);
  }

  public SequenceRecordReaderDataSetIterator(SequenceRecordReader featuresReader, SequenceRecordReader labels,
      int miniBatchSize, int numPossibleLabels, boolean regression) {
    this(featuresReader, labels, miniBatchSize, numPossibleLabels, regression, AlignmentMode.EQUAL_LENGTH);
  }

  public SequenceRecordReaderDataSetIterator(SequenceRecordReader featuresReader, SequenceRecordReader labels,
      int miniBatchSize, int numPossibleLabels, boolean regression, AlignmentMode alignmentMode) {
    this(featuresReader, labels, miniBatchSize, numPossibleLabels, -1, regression, alignmentMode);
    if (labels == null) {
      throw new IllegalArgumentException("SequenceRecordReaderDataSetIterator: the labels reader is null "
          + "(for one reader with the label in a column use the (reader, miniBatchSize, numPossibleLabels, labelIndex) form)");
    }
  }

  /** One reader: column {@code labelIndex} of each step is the label (a class, or a value for regression). */
  public SequenceRecordReaderDataSetIterator(SequenceRecordReader reader, int miniBatchSize, int numPossibleLabels,
      int labelIndex) {
    this(reader, miniBatchSize, numPossibleLabels, labelIndex, false);
  }

  public SequenceRecordReaderDataSetIterator(SequenceRecordReader reader, int miniBatchSize, int numPossibleLabels,
      int labelIndex, boolean regression) {
    this(reader, null, miniBatchSize, numPossibleLabels, labelIndex, regression, AlignmentMode.EQUAL_LENGTH);
    if (labelIndex < 0) {
      throw new IllegalArgumentException("SequenceRecordReaderDataSetIterator: labelIndex must be >= 0, got " + labelIndex);
    }
  }

  private SequenceRecordReaderDataSetIterator(SequenceRecordReader featuresReader, SequenceRecordReader labelsReader,
      int miniBatchSize, int numPossibleLabels, int labelIndex, boolean regression, AlignmentMode alignmentMode) {
    if (miniBatchSize <= 0) {
      throw new IllegalArgumentException("SequenceRecordReaderDataSetIterator: miniBatchSize must be > 0, got " + miniBatchSize);
    }
    if (!regression && numPossibleLabels < 1) {
      throw new IllegalArgumentException("SequenceRecordReaderDataSetIterator: classification needs numPossibleLabels "
          + ">= 1, got " + numPossibleLabels + " (or pass regression = true)");
    }
    this.featuresReader = featuresReader;
    this.labelsReader = labelsReader;
    this.miniBatchSize = miniBatchSize;
    this.numPossibleLabels = numPossibleLabels;
    this.labelIndex = labelIndex;
    this.regression = regression;
    this.alignmentMode = alignmentMode == null ? AlignmentMode.EQUAL_LENGTH : alignmentMode;
  }

  public boolean isCollectMetaData() { return collectMetaData; }
  public void setCollectMetaData(boolean collectMetaData) { this.collectMetaData = collectMetaData; }

  @Override
  public boolean hasNext() {
    return peeked != null || featuresReader.hasNext();
  }

  @Override
  public DataSet next() {
    return next(miniBatchSize);
  }

  @Override
  public DataSet next(int num) {
    if (peeked != null) {
      DataSet ds = peeked;
      peeked = null;
      return ds;
    }
    if (!featuresReader.hasNext()) {
      throw new NoSuchElementException("SequenceRecordReaderDataSetIterator: no more sequences (call reset())");
    }
    List<List<List<Writable>>> f = new ArrayList<>(num);
    List<List<List<Writable>>> l = labelsReader == null ? null : new ArrayList<>(num);
    List<Serializable> meta = collectMetaData ? new ArrayList<>() : null;
    long first = sequencesRead;
    while (f.size() < num && featuresReader.hasNext()) {
      if (labelsReader != null && !labelsReader.hasNext()) {
        throw new IllegalStateException("SequenceRecordReaderDataSetIterator: the labels reader has fewer sequences "
            + "than the features reader (no labels for sequence " + sequencesRead + ")");
      }
      if (collectMetaData) {
        SequenceRecord s = featuresReader.nextSequence();
        f.add(s.getSequenceRecord());
        meta.add(s.getMetaData());
        if (labelsReader != null) {
          l.add(labelsReader.nextSequence().getSequenceRecord());
        }
      } else {
        f.add(featuresReader.sequenceRecord());
        if (labelsReader != null) {
          l.add(labelsReader.sequenceRecord());
        }
      }
      sequencesRead++;
    }
    if (labelsReader != null && !featuresReader.hasNext() && labelsReader.hasNext()) {
      throw new IllegalStateException("SequenceRecordReaderDataSetIterator: the labels reader has more sequences ("
          + "after " + sequencesRead + ") than the features reader");
    }
    return toDataSet(f, l, first, meta);
  }

  private DataSet toDataSet(List<List<List<Writable>>> f, List<List<List<Writable>>> l, long first,
      List<Serializable> meta) {
    int mb = f.size();
    List<List<List<Writable>>> feats = f;
    List<List<List<Writable>>> labs = l;
    if (labelsReader == null) { // one reader: split column labelIndex off each step
      feats = new ArrayList<>(mb);
      labs = new ArrayList<>(mb);
      for (int i = 0; i < mb; i++) {
        List<List<Writable>> fs = new ArrayList<>(), ls = new ArrayList<>();
        for (List<Writable> step : f.get(i)) {
          if (labelIndex >= step.size()) {
            throw new IllegalStateException("SequenceRecordReaderDataSetIterator: label index " + labelIndex
                + " is outside sequence " + (first + i) + " (" + step.size() + " values per step)");
          }
          List<Writable> rest = new ArrayList<>(step);
          ls.add(Collections.singletonList(rest.remove(labelIndex)));
          fs.add(rest);
        }
        feats.add(fs);
        labs.add(ls);
      }
    }
    int t = 0;
    for (int i = 0; i < mb; i++) {
      int tf = feats.get(i).size(), tl = labs.get(i).size();
      if (tf == 0 || tl == 0) {
        throw new ZeroLengthSequenceException("SequenceRecordReaderDataSetIterator: sequence " + (first + i) + " has "
            + (tf == 0 ? "no feature steps" : "no label steps") + " (zero-length sequences cannot be used)", null);
      }
      if (alignmentMode == AlignmentMode.EQUAL_LENGTH && labelsReader != null && tf != tl) {
        throw new IllegalStateException("SequenceRecordReaderDataSetIterator: sequence " + (first + i) + " has " + tf
            + " feature steps but " + tl + " label steps: with AlignmentMode.EQUAL_LENGTH they must be equal "
            + "(use ALIGN_START or ALIGN_END for sequences of different lengths)");
      }
      // One reader cannot misalign features and labels: Deeplearning4j pads its sequences (ALIGN_START).
      if (alignmentMode == AlignmentMode.EQUAL_LENGTH && labelsReader != null && i > 0 && tf != feats.get(0).size()) {
        throw new UnsupportedOperationException("Alignment mode is set to EQUAL_LENGTH but variable length data was "
            + "encountered: sequence " + (first + i) + " has " + tf + " steps, sequence " + first + " of the same "
            + "minibatch " + feats.get(0).size() + ". Use AlignmentMode.ALIGN_START or AlignmentMode.ALIGN_END with "
            + "variable length data");
      }
      t = Math.max(t, Math.max(tf, tl));
    }
    int nIn = RecordBatches.rowWidth(feats.get(0).get(0), allColumns(feats.get(0).get(0).size()));
    int nOut = regression ? RecordBatches.rowWidth(labs.get(0).get(0), allColumns(labs.get(0).get(0).size()))
        : numPossibleLabels;
    float[] fv = new float[mb * nIn * t];
    float[] lv = new float[mb * nOut * t];
    float[] fm = new float[mb * t];
    float[] lm = new float[mb * t];
    boolean needFm = false, needLm = false;
    float[] step = new float[Math.max(nIn, nOut)];
    for (int i = 0; i < mb; i++) {
      List<List<Writable>> fs = feats.get(i), ls = labs.get(i);
      // ALIGN_END: the shorter of the example's features and labels ends where the longer ends; the
      // example itself starts at step 0 (padding after it), as Deeplearning4j places it.
      int len = Math.max(fs.size(), ls.size());
      int fOff = alignmentMode == AlignmentMode.ALIGN_END ? len - fs.size() : 0;
      int lOff = alignmentMode == AlignmentMode.ALIGN_END ? len - ls.size() : 0;
      needFm |= fs.size() < t;
      needLm |= ls.size() < t;
      for (int s = 0; s < fs.size(); s++) {
        List<Writable> w = fs.get(s);
        String where = "sequence " + (first + i) + ", step " + s;
        int at = 0;
        for (int c = 0; c < w.size(); c++) {
          at = RecordBatches.put(w.get(c), step, at, nIn, where, c, "features");
        }
        if (at != nIn) {
          throw new IllegalStateException(where + ": " + at + " feature values, the first step of sequence " + first
              + " has " + nIn);
        }
        for (int c = 0; c < nIn; c++) {
          fv[(i * nIn + c) * t + fOff + s] = step[c];
        }
        fm[i * t + fOff + s] = 1f;
      }
      for (int s = 0; s < ls.size(); s++) {
        List<Writable> w = ls.get(s);
        String where = "sequence " + (first + i) + ", step " + s;
        if (regression) {
          int at = 0;
          for (int c = 0; c < w.size(); c++) {
            at = RecordBatches.put(w.get(c), step, at, nOut, where, c, "labels");
          }
          if (at != nOut) {
            throw new IllegalStateException(where + ": " + at + " label values, the first step of sequence " + first
                + " has " + nOut);
          }
          for (int c = 0; c < nOut; c++) {
            lv[(i * nOut + c) * t + lOff + s] = step[c];
          }
        } else {
          int col = labelsReader == null ? labelIndex : 0;
          int cls = RecordBatches.classIndex(w.get(0), numPossibleLabels, where, col);
          lv[(i * nOut + cls) * t + lOff + s] = 1f;
        }
        lm[i * t + lOff + s] = 1f;
      }
    }
    INDArray features = Nd4j.create(fv, new long[] {mb, nIn, t});
    INDArray labels = Nd4j.create(lv, new long[] {mb, nOut, t});
    DataSet ds = new DataSet(features, labels, needFm ? Nd4j.create(fm, new long[] {mb, t}) : null,
        needLm ? Nd4j.create(lm, new long[] {mb, t}) : null);
    if (meta != null) {
      ds.setExampleMetaData(meta);
    }
    if (preProcessor != null) {
      preProcessor.preProcess(ds);
    }
    return ds;
  }

  private static List<Integer> allColumns(int n) {
    List<Integer> c = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      c.add(i);
    }
    return c;
  }

  /** The sequences behind the metadata (features reader's; with two readers, the labels reader's too). */
  public DataSet loadFromMetaData(RecordMetaData recordMetaData) throws IOException {
    return loadFromMetaData(Collections.singletonList(recordMetaData));
  }

  public DataSet loadFromMetaData(List<RecordMetaData> list) throws IOException {
    if (labelsReader != null) {
      throw new UnsupportedOperationException("SequenceRecordReaderDataSetIterator.loadFromMetaData with two readers: "
          + "the metadata names only the features reader's sequences (not implemented in ndrt)");
    }
    List<List<List<Writable>>> f = new ArrayList<>();
    List<Serializable> meta = new ArrayList<>();
    for (SequenceRecord s : featuresReader.loadSequenceFromMetaData(list)) {
      f.add(s.getSequenceRecord());
      meta.add(s.getMetaData());
    }
    return toDataSet(f, null, 0, meta);
  }

  @Override
  public int inputColumns() {
    if (peeked == null) {
      peeked = next();
    }
    return (int) peeked.getFeatures().size(1);
  }

  @Override
  public int totalOutcomes() {
    if (!regression) {
      return numPossibleLabels;
    }
    if (peeked == null) {
      peeked = next();
    }
    return (int) peeked.getLabels().size(1);
  }

  @Override
  public boolean resetSupported() {
    return featuresReader.resetSupported() && (labelsReader == null || labelsReader.resetSupported());
  }

  @Override public boolean asyncSupported() { return true; }

  @Override
  public void reset() {
    featuresReader.reset();
    if (labelsReader != null) {
      labelsReader.reset();
    }
    sequencesRead = 0;
    peeked = null;
  }

  @Override public int batch() { return miniBatchSize; }
  @Override public void setPreProcessor(DataSetPreProcessor preProcessor) { this.preProcessor = preProcessor; }
  @Override public DataSetPreProcessor getPreProcessor() { return preProcessor; }
  @Override public List<String> getLabels() { return null; }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("SequenceRecordReaderDataSetIterator.remove");
  }
}
