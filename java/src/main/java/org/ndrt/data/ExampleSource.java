package org.ndrt.data;

import java.util.Arrays;

/**
 * Examples by index, for iterators that choose their own order ({@link ShardedDataSetIterator}):
 * how many there are, the shape of one example's features, the width of a label row, and a copy of
 * example {@code i} as f32 values. {@link #of} holds Java arrays; {@link
 * MnistDataSetIterator#examples()} is an MNIST part.
 */
public interface ExampleSource {
  /** The number of examples. */
  int size();

  /** The shape of one example's features (e.g. {@code {784}}); a new array. */
  long[] featureShape();

  /** Values per label row (the number of classes for one-hot labels). */
  int labelWidth();

  /**
   * Copies example {@code i}: its features (row-major, {@code prod(featureShape())} values) into
   * {@code features} from {@code featureOffset}, its label row into {@code labels} from {@code
   * labelOffset}.
   */
  void copy(int i, float[] features, int featureOffset, float[] labels, int labelOffset);

  /** Values per example's features. */
  default int featureSize() {
    long n = 1;
    for (long d : featureShape()) {
      n *= d;
    }
    return Math.toIntExact(n);
  }

  /**
   * Examples held in Java arrays (copied): class {@code labels[i]} as a one-hot row of width {@code
   * numClasses}.
   *
   * @param features every example's features, row-major, one after another
   * @param featureShapePerExample the shape of one example
   * @param labels the class of each example, in [0, numClasses)
   * @throws IllegalArgumentException if the sizes do not fit or a label is out of range
   */
  static ExampleSource of(float[] features, long[] featureShapePerExample, int[] labels, int numClasses) {
    if (features == null || featureShapePerExample == null || labels == null) {
      throw new IllegalArgumentException("ExampleSource.of: features, featureShapePerExample and labels must not be null");
    }
    if (numClasses < 1) {
      throw new IllegalArgumentException("ExampleSource.of: numClasses must be >= 1, got " + numClasses);
    }
    long size = 1;
    for (long d : featureShapePerExample) {
      if (d < 1) {
        throw new IllegalArgumentException("ExampleSource.of: bad featureShapePerExample " + Arrays.toString(featureShapePerExample));
      }
      size *= d;
      if (size > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("ExampleSource.of: featureShapePerExample " + Arrays.toString(featureShapePerExample)
            + " is too large");
      }
    }
    if ((long) labels.length * size != features.length) {
      throw new IllegalArgumentException("ExampleSource.of: " + features.length + " feature values for " + labels.length
          + " examples of shape " + Arrays.toString(featureShapePerExample) + " (expected " + (long) labels.length * size + ")");
    }
    for (int i = 0; i < labels.length; ++i) {
      if (labels[i] < 0 || labels[i] >= numClasses) {
        throw new IllegalArgumentException("ExampleSource.of: label " + labels[i] + " of example " + i + " is outside [0, "
            + numClasses + ")");
      }
    }
    float[] x = features.clone();
    int[] y = labels.clone();
    long[] shape = featureShapePerExample.clone();
    int fs = (int) size;
    return new ExampleSource() {
      @Override
      public int size() {
        return y.length;
      }

      @Override
      public long[] featureShape() {
        return shape.clone();
      }

      @Override
      public int labelWidth() {
        return numClasses;
      }

      @Override
      public int featureSize() {
        return fs;
      }

      @Override
      public void copy(int i, float[] features, int featureOffset, float[] labels, int labelOffset) {
        System.arraycopy(x, i * fs, features, featureOffset, fs);
        Arrays.fill(labels, labelOffset, labelOffset + numClasses, 0f);
        labels[labelOffset + y[i]] = 1f;
      }
    };
  }
}
