package org.ndrt.earlystopping;

import org.ndrt.nn.MultiLayerNetwork;

/** Scores the network after an epoch, usually on held-out data; the trainer keeps the best-scoring model. */
public interface ScoreCalculator {
  /**
   * @param net the network as trained so far (not changed)
   * @return its score
   */
  double calculateScore(MultiLayerNetwork net);

  /** @return true if lower scores are better (a loss), false if higher are (an accuracy) */
  boolean minimizeScore();
}
