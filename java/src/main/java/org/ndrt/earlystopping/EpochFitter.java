package org.ndrt.earlystopping;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.nn.Model;

/**
 * The "train one epoch" step of an {@link EarlyStoppingTrainer}: the one thing a parallel trainer
 * replaces (everything else, scoring, saving, epoch conditions, stays the trainer's).
 */
@FunctionalInterface
public interface EpochFitter {
  /**
   * Trains {@code net} on every minibatch of {@code train}, checking {@code conditions} after each
   * one, in order, with the minibatch's score; stops at the first that fires.
   *
   * @param net the network to train (a MultiLayerNetwork or a ComputationGraph)
   * @param train the training data, already reset for this epoch; each DataSet taken is closed
   * @param conditions the iteration termination conditions (may be empty)
   * @return the condition that fired, or null if the epoch ran to its end
   */
  IterationTerminationCondition fitEpoch(Model net, DataSetIterator train,
      List<IterationTerminationCondition> conditions);

  /**
   * The default fitter: one {@link Model#fitEpoch} on the calling thread, conditions
   * checked with each minibatch's score. The network's listeners see the epoch and each iteration,
   * and its epoch count advances.
   *
   * @return the sequential fitter
   */
  static EpochFitter sequential() {
    return (net, train, conditions) -> {
      IterationTerminationCondition[] fired = {null};
      int[] minibatches = {0};
      net.fitEpoch(train, score -> {
        minibatches[0]++;
        for (IterationTerminationCondition c : conditions) {
          if (c.terminate(score)) {
            fired[0] = c;
            return true;
          }
        }
        return false;
      });
      if (minibatches[0] == 0) {  // else score-only conditions would never see a new score
        throw new IllegalStateException("the training iterator has no data (an epoch without any minibatch)");
      }
      return fired[0];
    };
  }

  /**
   * The minibatch loop of {@link #sequential()}, with the fitting of one minibatch and the score
   * after it passed in (so another trainer, or a test, can reuse it).
   *
   * @param train the training data for this epoch; each DataSet taken is closed, also on an exception
   * @param fitOne fits one minibatch (the DataSet stays owned by this loop)
   * @param lastScore the score of the minibatch just fitted
   * @param conditions checked in order after each minibatch
   * @return the condition that fired, or null if the epoch ran to its end
   * @throws IllegalStateException if the epoch had no minibatch at all (nothing would ever be
   *     trained) or the iterator returned null
   */
  static IterationTerminationCondition fitMinibatches(DataSetIterator train, Consumer<DataSet> fitOne,
      DoubleSupplier lastScore, List<IterationTerminationCondition> conditions) {
    int minibatches = 0;
    while (train.hasNext()) {
      try (DataSet ds = train.next()) {
        if (ds == null) {
          throw new IllegalStateException("the training iterator returned a null DataSet");
        }
        fitOne.accept(ds);
      }
      minibatches++;
      double score = lastScore.getAsDouble();
      for (IterationTerminationCondition c : conditions) {
        if (c.terminate(score)) {
          return c;
        }
      }
    }
    if (minibatches == 0) {
      throw new IllegalStateException("the training iterator has no data (an epoch without any minibatch)");
    }
    return null;
  }
}
