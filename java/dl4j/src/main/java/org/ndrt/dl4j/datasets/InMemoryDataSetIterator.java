package org.ndrt.dl4j.datasets;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.data.IdxFile;
import org.ndrt.data.MnistNpm;

/**
 * A labelled set held in memory as float features [n, width] and class indices, served as
 * Deeplearning4j's fetcher-based iterators do (MnistDataSetIterator, IrisDataSetIterator...):
 * minibatches f32 [mb, width] with one-hot labels f32 [mb, numClasses]. With shuffling, each epoch
 * (construction, then every reset) draws a fresh permutation of the whole set from one
 * java.util.Random(seed) and serves its first numExamples: as Deeplearning4j (a different subset each
 * epoch when numExamples is below the set's size), though not Deeplearning4j's random stream.
 */
public class InMemoryDataSetIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;
  private final float[] features; // [total, width]
  private final int[] labels; // [total], 0..numClasses-1
  private final int width;
  private final int numClasses;
  private final int numExamples;
  private final int batch;
  private final boolean shuffle;
  private final Random rng;
  private final int[] order;
  private final List<String> labelNames;
  private int cursor;
  private DataSetPreProcessor preProcessor;

  public InMemoryDataSetIterator(float[] features, int[] labels, int width, int numClasses, int batch, int numExamples,
      boolean shuffle, long seed, List<String> labelNames) {
    if (batch <= 0) {
      throw new IllegalArgumentException("batch size must be > 0, got " + batch);
    }
    this.features = features;
    this.labels = labels;
    this.width = width;
    this.numClasses = numClasses;
    this.batch = batch;
    this.numExamples = numExamples <= 0 ? labels.length : Math.min(numExamples, labels.length);
    this.shuffle = shuffle;
    this.rng = new Random(seed);
    this.labelNames = labelNames;
    this.order = new int[labels.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    if (shuffle) {
      shuffleOrder();
    }
  }

  private void shuffleOrder() {
    for (int i = order.length - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }

  /**
   * Unsigned-byte IDX images [n, rows, cols] as floats [n, rows*cols]: pixel / 255, or (binarize) 1
   * for a pixel above 30 and 0 otherwise, as Deeplearning4j's MnistDataFetcher.
   */
  public static float[] readImages(Path file, boolean binarize, int[] countOut) throws IOException {
    int[] dims = new int[3];
    byte[] px = IdxFile.readUnsignedBytes(file, dims);
    float[] out = new float[px.length];
    for (int i = 0; i < px.length; i++) {
      int v = px[i] & 0xff;
      out[i] = binarize ? (v > 30 ? 1f : 0f) : v / 255f;
    }
    countOut[0] = dims[0];
    return out;
  }

  /** Unsigned-byte IDX labels, each minus {@code offset} (1 for EMNIST letters, which count from 1). */
  public static int[] readLabels(Path file, int offset, int numClasses) throws IOException {
    int[] dims = new int[1];
    byte[] b = IdxFile.readUnsignedBytes(file, dims);
    int[] out = new int[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (b[i] & 0xff) - offset;
      if (out[i] < 0 || out[i] >= numClasses) {
        throw new IOException(file + ": label " + (b[i] & 0xff) + " of example " + i + " is outside the "
            + numClasses + " classes");
      }
    }
    return out;
  }

  /** {@code dir/name}, or {@code dir/name.gz} when only that exists; null when neither does. */
  public static Path find(Path dir, String name) {
    Path p = MnistNpm.file(dir, name);
    return Files.isRegularFile(p) ? p : null;
  }

  @Override public boolean hasNext() { return cursor < numExamples; }
  @Override public DataSet next() { return next(batch); }

  @Override
  public DataSet next(int num) {
    if (!hasNext()) {
      throw new NoSuchElementException("no more examples (call reset())");
    }
    int mb = Math.min(num, numExamples - cursor);
    float[] f = new float[mb * width];
    float[] l = new float[mb * numClasses];
    for (int i = 0; i < mb; i++) {
      int e = order[cursor + i];
      System.arraycopy(features, e * width, f, i * width, width);
      l[i * numClasses + labels[e]] = 1f;
    }
    cursor += mb;
    DataSet ds = new DataSet(Nd4j.create(f, new long[] {mb, width}), Nd4j.create(l, new long[] {mb, numClasses}));
    if (labelNames != null) {
      ds.setLabelNames(new ArrayList<>(labelNames));
    }
    if (preProcessor != null) {
      preProcessor.preProcess(ds);
    }
    return ds;
  }

  /** Examples served per epoch. */
  public int numExamples() { return numExamples; }

  @Override public int inputColumns() { return width; }
  @Override public int totalOutcomes() { return numClasses; }
  @Override public boolean resetSupported() { return true; }
  @Override public boolean asyncSupported() { return true; }

  @Override
  public void reset() {
    cursor = 0;
    if (shuffle) {
      shuffleOrder();
    }
  }

  @Override public int batch() { return batch; }
  @Override public void setPreProcessor(DataSetPreProcessor preProcessor) { this.preProcessor = preProcessor; }
  @Override public DataSetPreProcessor getPreProcessor() { return preProcessor; }
  @Override public List<String> getLabels() { return labelNames; }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("remove");
  }
}
