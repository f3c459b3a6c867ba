package org.deeplearning4j.earlystopping.scorecalc;

import java.io.Serializable;
import org.deeplearning4j.nn.api.Model;

/** Deeplearning4j's score calculator: scores the network after an epoch; the best score's model is kept. */
public interface ScoreCalculator<T extends Model> extends Serializable {
  double calculateScore(T network);

  /** @return true if lower scores are better (a loss), false if higher are (an accuracy) */
  boolean minimizeScore();
}
