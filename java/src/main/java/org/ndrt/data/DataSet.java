package org.ndrt.data;

import org.ndrt.Tensor;

/**
 * One minibatch: features and labels as ndrt tensors. Labels are one-hot rows ([N, classes], f32) as
 * Deeplearning4j uses them; features have the shape the network's input type expects (for MNIST
 * [N, 784] f32 in [0, 1], reshaped to [N, 1, 28, 28] by a convolutional-flat input type).
 *
 * <p>Sequences (for recurrent networks) are Deeplearning4j's [N, features, T] and [N, classes, T], with
 * optional masks [N, T] (1 = a valid step, 0 = padding): the features mask must mark a prefix of each
 * sequence (padding at the end only); the labels mask may mark any steps (those that count in the
 * loss). Without a labels mask the features mask decides which steps count.
 *
 * <p>A DataSet owns its tensors: {@link #close()} releases them (masks included). {@code MultiLayerNetwork.fit(iterator)}
 * closes each DataSet it took from the iterator once it is done with it.
 */
public final class DataSet implements AutoCloseable {
  private final Tensor features;
  private final Tensor labels;
  private final Tensor featuresMask;
  private final Tensor labelsMask;

  public DataSet(Tensor features, Tensor labels) {
    this(features, labels, null, null);
  }

  /** With masks ([N, T], either may be null), as Deeplearning4j's DataSet(features, labels, featuresMask, labelsMask). */
  public DataSet(Tensor features, Tensor labels, Tensor featuresMask, Tensor labelsMask) {
    if (features == null || labels == null) {
      throw new IllegalArgumentException("DataSet: features and labels must not be null");
    }
    if (features.shape().length == 0 || labels.shape().length == 0
        || features.shape()[0] != labels.shape()[0]) {
      throw new IllegalArgumentException("DataSet: features " + java.util.Arrays.toString(features.shape())
          + " and labels " + java.util.Arrays.toString(labels.shape()) + " must have the same first dimension");
    }
    for (Tensor m : new Tensor[] {featuresMask, labelsMask}) {
      if (m != null && (m.shape().length != 2 || m.shape()[0] != features.shape()[0])) {
        throw new IllegalArgumentException("DataSet: a mask must be [N, T] with the features' N = " + features.shape()[0]
            + ", got " + java.util.Arrays.toString(m.shape()));
      }
    }
    this.features = features;
    this.labels = labels;
    this.featuresMask = featuresMask;
    this.labelsMask = labelsMask;
  }

  public Tensor features() {
    return features;
  }

  public Tensor labels() {
    return labels;
  }

  /** The features (Deeplearning4j's name for {@link #features()}). */
  public Tensor getFeatures() {
    return features;
  }

  /** The labels (Deeplearning4j's name for {@link #labels()}). */
  public Tensor getLabels() {
    return labels;
  }

  /**
   * The features.
   *
   * @deprecated as in Deeplearning4j: {@link #getFeatures()}
   */
  @Deprecated
  public Tensor getFeatureMatrix() {
    org.ndrt.LegacyApi.warn("DataSet.getFeatureMatrix()", "getFeatures()");
    return features;
  }

  /** The features mask [N, T] (1 = valid step), or null. */
  public Tensor featuresMask() {
    return featuresMask;
  }

  /** The labels mask [N, T] (1 = the step counts in the loss), or null. */
  public Tensor labelsMask() {
    return labelsMask;
  }

  /** Deeplearning4j's name for {@link #featuresMask()}. */
  public Tensor getFeaturesMaskArray() {
    return featuresMask;
  }

  /** Deeplearning4j's name for {@link #labelsMask()}. */
  public Tensor getLabelsMaskArray() {
    return labelsMask;
  }

  /** Examples in this minibatch (the first dimension). */
  public int numExamples() {
    return (int) features.shape()[0];
  }

  @Override
  public void close() {
    features.close();
    labels.close();
    if (featuresMask != null) {
      featuresMask.close();
    }
    if (labelsMask != null) {
      labelsMask.close();
    }
  }
}
