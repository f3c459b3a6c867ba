package org.ndrt.data;

import java.util.Arrays;
import java.util.NoSuchElementException;
import org.ndrt.Tensor;

/**
 * Minibatches from examples held in Java arrays, in their order (no shuffling): batch {@code b} holds
 * examples {@code [b * batchSize, min((b + 1) * batchSize, N))}, the last one possibly smaller.
 *
 * <pre>{@code
 * // 6 examples of 2x2 features, 3 classes, batches of 4 and 2:
 * float[] x = new float[6 * 4];                        // row-major [6, 2, 2]
 * int[] y = {0, 1, 2, 0, 1, 2};
 * DataSetIterator it = new ListDataSetIterator(x, new long[] {2, 2}, y, 3, 4);
 * // next(): features [4, 2, 2], labels one-hot [4, 3]; then [2, 2, 2], [2, 3]
 * }</pre>
 *
 * The arrays are copied at construction. Each {@link #next()} makes new tensors (on the calling
 * thread's current device) that the caller owns.
 */
public final class ListDataSetIterator implements DataSetIterator {
  private final float[] features;
  private final long[] featureShape; // per example
  private final int featureSize;
  private final float[] labels; // [N, labelWidth]
  private final int labelWidth;
  private final int count;
  private final int batchSize;
  private int cursor;

  /**
   * Examples with class labels (one-hot labels of width {@code numClasses}).
   *
   * @param features every example's features, row-major, one after another ({@code N * prod(featureShapePerExample)})
   * @param featureShapePerExample the shape of one example (e.g. {@code {784}} or {@code {1, 28, 28}})
   * @param labels the class of each example, in [0, numClasses); its length is N
   * @param numClasses the labels' width
   * @param batchSize examples per minibatch
   */
  public ListDataSetIterator(float[] features, long[] featureShapePerExample, int[] labels, int numClasses, int batchSize) {
    this(features, featureShapePerExample, oneHot(labels, numClasses), numClasses, batchSize);
  }

  /** Examples with class labels, one feature row per example (all rows of the same length). */
  public ListDataSetIterator(float[][] rows, int[] labels, int numClasses, int batchSize) {
    this(flatten(rows), new long[] {rows == null || rows.length == 0 || rows[0] == null ? 0 : rows[0].length}, labels, numClasses, batchSize);
  }

  /**
   * Examples with arbitrary label rows (regression targets, soft labels).
   *
   * @param labels every example's label row, one after another ({@code N * labelWidth})
   * @param labelWidth values per label row ({@link #totalOutcomes()})
   */
  public ListDataSetIterator(float[] features, long[] featureShapePerExample, float[] labels, int labelWidth, int batchSize) {
    if (features == null || featureShapePerExample == null || labels == null) {
      throw new IllegalArgumentException("ListDataSetIterator: features, featureShapePerExample and labels must not be null");
    }
    if (batchSize < 1 || labelWidth < 1) {
      throw new IllegalArgumentException("ListDataSetIterator: batchSize and the label width must be >= 1, got "
          + batchSize + " and " + labelWidth);
    }
    long size = 1;
    for (long d : featureShapePerExample) {
      if (d < 1) {
        throw new IllegalArgumentException("ListDataSetIterator: bad featureShapePerExample " + Arrays.toString(featureShapePerExample));
      }
      size *= d;
      if (size > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("ListDataSetIterator: featureShapePerExample " + Arrays.toString(featureShapePerExample) + " is too large");
      }
    }
    if (labels.length % labelWidth != 0) {
      throw new IllegalArgumentException("ListDataSetIterator: " + labels.length + " label values are not rows of " + labelWidth);
    }
    this.count = labels.length / labelWidth;
    if ((long) count * size != features.length) {
      throw new IllegalArgumentException("ListDataSetIterator: " + features.length + " feature values for " + count
          + " examples of shape " + Arrays.toString(featureShapePerExample) + " (expected " + (long) count * size + ")");
    }
    this.features = features.clone();
    this.featureShape = featureShapePerExample.clone();
    this.featureSize = (int) size;
    this.labels = labels.clone();
    this.labelWidth = labelWidth;
    this.batchSize = batchSize;
  }

  private static float[] oneHot(int[] labels, int numClasses) {
    if (labels == null) {
      throw new IllegalArgumentException("ListDataSetIterator: labels must not be null");
    }
    if (numClasses < 1) {
      throw new IllegalArgumentException("ListDataSetIterator: numClasses must be >= 1, got " + numClasses);
    }
    float[] out = new float[labels.length * numClasses];
    for (int i = 0; i < labels.length; i++) {
      if (labels[i] < 0 || labels[i] >= numClasses) {
        throw new IllegalArgumentException("ListDataSetIterator: label " + labels[i] + " of example " + i
            + " is outside [0, " + numClasses + ")");
      }
      out[i * numClasses + labels[i]] = 1f;
    }
    return out;
  }

  private static float[] flatten(float[][] rows) {
    if (rows == null || rows.length == 0) {
      throw new IllegalArgumentException("ListDataSetIterator: no rows (the row length gives the feature shape)");
    }
    int width = rows[0] == null ? 0 : rows[0].length;
    float[] out = new float[rows.length * width];
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] == null || rows[i].length != width) {
        throw new IllegalArgumentException("ListDataSetIterator: row " + i + " has "
            + (rows[i] == null ? "no values" : rows[i].length + " values") + ", row 0 has " + width);
      }
      System.arraycopy(rows[i], 0, out, i * width, width);
    }
    return out;
  }

  /** A DataSet of two new tensors; neither leaks when making the second (or the DataSet) fails. */
  static DataSet dataSet(float[] features, long[] featureShape, float[] labels, long[] labelShape) {
    Tensor f = Tensor.from(features, featureShape);
    Tensor l = null;
    try {
      l = Tensor.from(labels, labelShape);
      return new DataSet(f, l);
    } catch (RuntimeException e) {
      f.close();
      if (l != null) {
        l.close();
      }
      throw e;
    }
  }

  @Override
  public boolean hasNext() {
    return cursor < count;
  }

  @Override
  public DataSet next() {
    if (!hasNext()) {
      throw new NoSuchElementException("ListDataSetIterator: the epoch is over (call reset() for the next one)");
    }
    int n = Math.min(batchSize, count - cursor);
    long[] shape = new long[featureShape.length + 1];
    shape[0] = n;
    System.arraycopy(featureShape, 0, shape, 1, featureShape.length);
    float[] f = Arrays.copyOfRange(features, cursor * featureSize, (cursor + n) * featureSize);
    float[] l = Arrays.copyOfRange(labels, cursor * labelWidth, (cursor + n) * labelWidth);
    cursor += n;
    return dataSet(f, shape, l, new long[] {n, labelWidth});
  }

  @Override
  public void reset() {
    cursor = 0;
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  @Override
  public long numExamples() {
    return count;
  }

  /** The labels' width (the number of classes for class labels). */
  @Override
  public int totalOutcomes() {
    return labelWidth;
  }
}
