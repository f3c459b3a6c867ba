package org.deeplearning4j.earlystopping.scorecalc;

import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.ndrt.dl4j.NdrtBacked;
import org.ndrt.dl4j.Tensors;

/**
 * Deeplearning4j's DataSetLossCalculator: the network's loss over a data set (the mean per example when
 * {@code average}, else the sum), computed by org.ndrt.earlystopping.DataSetLossCalculator over the
 * same iterator (reset before each use).
 */
public class DataSetLossCalculator implements ScoreCalculator<Model>,
    NdrtBacked<org.ndrt.earlystopping.ScoreCalculator> {
  private final transient org.ndrt.earlystopping.DataSetLossCalculator ndrt;

  public DataSetLossCalculator(DataSetIterator dataSetIterator, boolean average) {
    ndrt = new org.ndrt.earlystopping.DataSetLossCalculator(Tensors.iterator(dataSetIterator), average);
  }

  @Override
  public double calculateScore(Model network) {
    if (!(network instanceof MultiLayerNetwork)) {
      throw new UnsupportedOperationException("DataSetLossCalculator: ndrt's Deeplearning4j drop-in scores a"
          + " MultiLayerNetwork only (ComputationGraph is not offered), got " + network.getClass().getName());
    }
    return ndrt.calculateScore(((MultiLayerNetwork) network).ndrtNetwork());
  }

  @Override
  public boolean minimizeScore() {
    return true;
  }

  /** ndrt: the org.ndrt.earlystopping calculator this names (the trainer runs it directly). */
  @Override
  public org.ndrt.earlystopping.ScoreCalculator ndrt() {
    return ndrt;
  }

  @Override
  public String toString() {
    return "DataSetLossCalculator(" + ndrt + ")";
  }
}
