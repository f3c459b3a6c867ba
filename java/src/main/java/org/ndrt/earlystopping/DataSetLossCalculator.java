package org.ndrt.earlystopping;

import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.nn.Model;

/**
 * The network's loss over every minibatch of an iterator ({@code Model.score(DataSet)}, in
 * inference mode; a graph: one input and one output), either averaged per example or summed. Lower is better.
 *
 * <p>Each call resets the iterator first, reads it to the end and closes every DataSet it took.
 */
public final class DataSetLossCalculator implements ScoreCalculator {
  private final DataSetIterator iterator;
  private final boolean average;

  /**
   * @param iterator the held-out data (the calculator resets it; it stays the caller's to close)
   * @param average true for the mean loss per example, false for the sum over examples
   * @throws IllegalArgumentException if {@code iterator} is null
   */
  public DataSetLossCalculator(DataSetIterator iterator, boolean average) {
    if (iterator == null) {
      throw new IllegalArgumentException("DataSetLossCalculator: the iterator must not be null");
    }
    this.iterator = iterator;
    this.average = average;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Each minibatch's score (a mean over its examples) is weighted by its number of examples, so
   * a smaller last minibatch counts for what it holds.
   *
   * @throws IllegalStateException if the iterator has no examples
   */
  @Override
  public double calculateScore(Model net) {
    iterator.reset();
    double sum = 0;
    long examples = 0;
    while (iterator.hasNext()) {
      try (DataSet ds = iterator.next()) {
        int n = ds.numExamples();
        sum += net.score(ds) * n;
        examples += n;
      }
    }
    if (examples == 0) {
      throw new IllegalStateException("DataSetLossCalculator: the iterator gave no examples");
    }
    return average ? sum / examples : sum;
  }

  @Override
  public boolean minimizeScore() {
    return true;
  }

  @Override
  public String toString() {
    return "DataSetLossCalculator(average=" + average + ")";
  }
}
