package org.ndrt.earlystopping;

import org.ndrt.nn.Model;

/**
 * Scores the network after an epoch, usually on held-out data; the trainer keeps the best-scoring model.
 * Any {@link Model}: a MultiLayerNetwork or a ComputationGraph (one input and one output for the
 * DataSet-based calculators here).
 */
public interface ScoreCalculator {
  /**
   * @param net the network as trained so far (not changed): a MultiLayerNetwork or a ComputationGraph
   * @return its score
   */
  double calculateScore(Model net);

  /** @return true if lower scores are better (a loss), false if higher are (an accuracy) */
  boolean minimizeScore();
}
