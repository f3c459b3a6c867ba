package org.ndrt.data;

import java.util.Arrays;
import org.ndrt.Tensor;

/**
 * One minibatch for a network with several inputs and outputs (a ComputationGraph): features and
 * labels arrays in the graph's input and output order, each with an optional mask [N, T] (null
 * entries or null arrays: none). Every array has the same N. Closing it closes every array.
 */
public final class MultiDataSet implements AutoCloseable {
  private final Tensor[] features;
  private final Tensor[] labels;
  private final Tensor[] featuresMasks;
  private final Tensor[] labelsMasks;

  public MultiDataSet(Tensor[] features, Tensor[] labels) {
    this(features, labels, null, null);
  }

  public MultiDataSet(Tensor[] features, Tensor[] labels, Tensor[] featuresMasks, Tensor[] labelsMasks) {
    if (features == null || features.length == 0 || labels == null) {
      throw new IllegalArgumentException("MultiDataSet: need at least one features array and a labels array (may be empty)");
    }
    long n = -1;
    for (Tensor[] group : new Tensor[][] {features, labels}) {
      for (Tensor t : group) {
        if (t == null || t.rank() == 0) {
          throw new IllegalArgumentException("MultiDataSet: features and labels must be arrays with a batch axis, got "
              + (t == null ? "null" : "a scalar"));
        }
        if (n >= 0 && t.shape()[0] != n) {
          throw new IllegalArgumentException("MultiDataSet: every array must have the same first dimension, got "
              + shapes(features) + " and " + shapes(labels));
        }
        n = t.shape()[0];
      }
    }
    checkMasks(featuresMasks, features.length, n, "features");
    checkMasks(labelsMasks, labels.length, n, "labels");
    this.features = features.clone();
    this.labels = labels.clone();
    this.featuresMasks = featuresMasks == null ? new Tensor[features.length] : featuresMasks.clone();
    this.labelsMasks = labelsMasks == null ? new Tensor[labels.length] : labelsMasks.clone();
  }

  /** A single-input, single-output DataSet as a MultiDataSet (the same arrays: close one of the two). */
  public static MultiDataSet of(DataSet ds) {
    return new MultiDataSet(new Tensor[] {ds.features()}, new Tensor[] {ds.labels()},
        new Tensor[] {ds.featuresMask()}, new Tensor[] {ds.labelsMask()});
  }

  private static void checkMasks(Tensor[] masks, int count, long n, String what) {
    if (masks == null) {
      return;
    }
    if (masks.length != count) {
      throw new IllegalArgumentException("MultiDataSet: " + masks.length + " " + what + " masks for " + count + " arrays");
    }
    for (Tensor m : masks) {
      if (m != null && (m.rank() != 2 || m.shape()[0] != n)) {
        throw new IllegalArgumentException("MultiDataSet: a mask must be [N, T] with N = " + n + ", got "
            + Arrays.toString(m.shape()));
      }
    }
  }

  private static String shapes(Tensor[] ts) {
    StringBuilder sb = new StringBuilder("[");
    for (Tensor t : ts) {
      sb.append(sb.length() > 1 ? ", " : "").append(t == null ? "null" : Arrays.toString(t.shape()));
    }
    return sb.append(']').toString();
  }

  public Tensor[] features() {
    return features.clone();
  }

  public Tensor[] labels() {
    return labels.clone();
  }

  /** Per features array its mask, or null entries. */
  public Tensor[] featuresMasks() {
    return featuresMasks.clone();
  }

  /** Per labels array its mask, or null entries. */
  public Tensor[] labelsMasks() {
    return labelsMasks.clone();
  }

  public Tensor features(int i) {
    return features[i];
  }

  public Tensor labels(int i) {
    return labels[i];
  }

  public int numFeatureArrays() {
    return features.length;
  }

  public int numLabelsArrays() {
    return labels.length;
  }

  public int numExamples() {
    return (int) features[0].shape()[0];
  }

  /** Examples {@code from} (inclusive) to {@code to} (exclusive) of every array: views of the same storage. */
  public MultiDataSet rows(int from, int to) {
    if (from < 0 || to > numExamples() || from >= to) {
      throw new IllegalArgumentException("MultiDataSet.rows(" + from + ", " + to + "): need 0 <= from < to <= "
          + numExamples());
    }
    return new MultiDataSet(rows(features, from, to), rows(labels, from, to), rows(featuresMasks, from, to),
        rows(labelsMasks, from, to));
  }

  private static Tensor[] rows(Tensor[] ts, int from, int to) {
    Tensor[] out = new Tensor[ts.length];
    for (int i = 0; i < ts.length; ++i) {
      out[i] = ts[i] == null ? null : ts[i].slice(0, from, to);
    }
    return out;
  }

  /**
   * This one-input, one-output minibatch as a DataSet over the same arrays (new handles: close both).
   *
   * @throws IllegalArgumentException if it has several features or labels arrays
   */
  public DataSet toDataSet() {
    if (features.length != 1 || labels.length != 1) {
      throw new IllegalArgumentException("MultiDataSet.toDataSet: need one features and one labels array, got "
          + features.length + " and " + labels.length);
    }
    return new DataSet(share(features[0]), share(labels[0]), share(featuresMasks[0]), share(labelsMasks[0]));
  }

  private static Tensor share(Tensor t) {
    return t == null ? null : t.share();
  }

  @Override
  public void close() {
    for (Tensor[] group : new Tensor[][] {features, labels, featuresMasks, labelsMasks}) {
      for (Tensor t : group) {
        if (t != null) {
          t.close();
        }
      }
    }
  }
}
