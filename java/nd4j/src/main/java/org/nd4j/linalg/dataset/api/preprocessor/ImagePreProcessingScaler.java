package org.nd4j.linalg.dataset.api.preprocessor;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.preprocessor.serializer.NormalizerType;

/**
 * Pixel values from [0, 2^maxBits - 1] to [a, b], as ND4J's ImagePreProcessingScaler (nothing to fit).
 * Labels are scaled only with fitLabel(true), and only rank-4 (segmentation) labels.
 */
public class ImagePreProcessingScaler implements DataNormalization {
  private static final long serialVersionUID = 1L;
  private final double minRange;
  private final double maxRange;
  private final double maxPixelVal;
  private boolean fitLabels;

  public ImagePreProcessingScaler() {
    this(0, 1, 8);
  }

  public ImagePreProcessingScaler(double a, double b) {
    this(a, b, 8);
  }

  public ImagePreProcessingScaler(double a, double b, int maxBits) {
    this.maxPixelVal = Math.pow(2, maxBits) - 1;
    this.minRange = a;
    this.maxRange = b;
  }

  @Override
  public void fit(DataSet dataSet) {}

  @Override
  public void fit(DataSetIterator iterator) {}

  @Override
  public void preProcess(DataSet toPreProcess) {
    preProcess(toPreProcess.getFeatures());
    if (fitLabels && toPreProcess.getLabels() != null) {
      preProcess(toPreProcess.getLabels());
    }
  }

  public void preProcess(INDArray features) {
    features.divi(maxPixelVal);
    if (maxRange - minRange != 1) {
      features.muli(maxRange - minRange);
    }
    if (minRange != 0) {
      features.addi(minRange);
    }
  }

  @Override public void transform(DataSet toPreProcess) { preProcess(toPreProcess); }
  @Override public void transform(INDArray features) { preProcess(features); }
  @Override public void transform(INDArray features, INDArray featuresMask) { transform(features); }

  private static void checkRank4(INDArray labels) {
    if (labels == null || labels.rank() != 4) {
      throw new IllegalStateException("Labels can only be transformed for segmentation use cases using this preprocesser"
          + " - i.e., labels must be rank 4. Got: " + (labels == null ? "null" : Arrays.toString(labels.shape())));
    }
  }

  @Override
  public void transformLabel(INDArray label) {
    checkRank4(label);
    transform(label);
  }

  @Override public void transformLabel(INDArray labels, INDArray labelsMask) { transformLabel(labels); }

  @Override
  public void revert(DataSet toRevert) {
    revertFeatures(toRevert.getFeatures());
    revertLabels(toRevert.getLabels());
  }

  @Override
  public void revertFeatures(INDArray features) {
    if (minRange != 0) {
      features.subi(minRange);
    }
    if (maxRange - minRange != 1.0) {
      features.divi(maxRange - minRange);
    }
    features.muli(maxPixelVal);
  }

  @Override public void revertFeatures(INDArray features, INDArray featuresMask) { revertFeatures(features); }

  @Override
  public void revertLabels(INDArray labels) {
    checkRank4(labels);
    revertFeatures(labels);
  }

  @Override public void revertLabels(INDArray labels, INDArray labelsMask) { revertLabels(labels); }
  @Override public void fitLabel(boolean fitLabels) { this.fitLabels = fitLabels; }
  @Override public boolean isFitLabel() { return fitLabels; }

  @Override
  public NormalizerType getType() {
    return NormalizerType.IMAGE_MIN_MAX;
  }
}
