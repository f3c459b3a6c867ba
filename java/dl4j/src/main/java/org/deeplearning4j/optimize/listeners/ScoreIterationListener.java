package org.deeplearning4j.optimize.listeners;

import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs "Score at iteration i is s" every printIterations iterations (slf4j, INFO), as Deeplearning4j's. */
public class ScoreIterationListener extends BaseTrainingListener {
  private static final Logger log = LoggerFactory.getLogger(ScoreIterationListener.class);
  private final int printIterations;

  public ScoreIterationListener() {
    this(10);
  }

  public ScoreIterationListener(int printIterations) {
    if (printIterations <= 0) {
      throw new IllegalArgumentException("printIterations must be positive, got " + printIterations);
    }
    this.printIterations = printIterations;
  }

  @Override
  public void iterationDone(Model model, int iteration, int epoch) {
    if (iteration % printIterations == 0) {
      log.info("Score at iteration {} is {}", iteration, model.score());
    }
  }
}
