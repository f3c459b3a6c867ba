package org.ndrt.earlystopping;

import org.ndrt.data.DataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.Model;

/**
 * A classification metric of the network on held-out data ({@code Model.evaluate}; a graph: its
 * first output).
 * Higher is better. Precision, recall and F1 are {@link Evaluation}'s macro averages over classes.
 *
 * <p>Each call resets the iterator first.
 */
public final class ClassificationScoreCalculator implements ScoreCalculator {
  /** The metric to maximize. */
  public enum Metric {
    /** Fraction of examples classified correctly. */
    ACCURACY,
    /** Macro-averaged F1 score. */
    F1,
    /** Macro-averaged precision. */
    PRECISION,
    /** Macro-averaged recall. */
    RECALL
  }

  private final Metric metric;
  private final DataSetIterator iterator;

  /**
   * @param metric what to maximize
   * @param iterator the held-out data (the calculator resets it; it stays the caller's to close)
   * @throws IllegalArgumentException if either is null
   */
  public ClassificationScoreCalculator(Metric metric, DataSetIterator iterator) {
    if (metric == null || iterator == null) {
      throw new IllegalArgumentException("ClassificationScoreCalculator: metric and iterator must not be null");
    }
    this.metric = metric;
    this.iterator = iterator;
  }

  @Override
  public double calculateScore(Model net) {
    iterator.reset();
    return value(net.evaluate(iterator));
  }

  /** The chosen metric of an evaluation. */
  double value(Evaluation e) {
    return switch (metric) {
      case ACCURACY -> e.accuracy();
      case F1 -> e.f1();
      case PRECISION -> e.precision();
      case RECALL -> e.recall();
    };
  }

  @Override
  public boolean minimizeScore() {
    return false;
  }

  @Override
  public String toString() {
    return "ClassificationScoreCalculator(" + metric + ")";
  }
}
