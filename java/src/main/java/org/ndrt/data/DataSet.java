package org.ndrt.data;

import org.ndrt.Tensor;

/**
 * One minibatch: features and labels as ndrt tensors. Labels are one-hot rows ([N, classes], f32) as
 * Deeplearning4j uses them; features have the shape the network's input type expects (for MNIST
 * [N, 784] f32 in [0, 1], reshaped to [N, 1, 28, 28] by a convolutional-flat input type).
 *
 * <p>A DataSet owns its tensors: {@link #close()} releases both. {@code MultiLayerNetwork.fit(iterator)}
 * closes each DataSet it took from the iterator once it is done with it.
 */
public final class DataSet implements AutoCloseable {
  private final Tensor features;
  private final Tensor labels;

  public DataSet(Tensor features, Tensor labels) {
    if (features == null || labels == null) {
      throw new IllegalArgumentException("DataSet: features and labels must not be null");
    }
    if (features.shape().length == 0 || labels.shape().length == 0
        || features.shape()[0] != labels.shape()[0]) {
      throw new IllegalArgumentException("DataSet: features " + java.util.Arrays.toString(features.shape())
          + " and labels " + java.util.Arrays.toString(labels.shape()) + " must have the same first dimension");
    }
    this.features = features;
    this.labels = labels;
  }

  public Tensor features() {
    return features;
  }

  public Tensor labels() {
    return labels;
  }

  /** Examples in this minibatch (the first dimension). */
  public int numExamples() {
    return (int) features.shape()[0];
  }

  @Override
  public void close() {
    features.close();
    labels.close();
  }
}
