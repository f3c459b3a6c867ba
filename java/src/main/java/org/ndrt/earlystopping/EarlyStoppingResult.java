package org.ndrt.earlystopping;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.ndrt.nn.Model;

/**
 * How an early-stopping run ended, the score of every scored epoch, and the best model (a
 * MultiLayerNetwork or a ComputationGraph, as trained). Not generic: {@link #getBestModel()} is a
 * generic method returning the type the caller asks for.
 */
public final class EarlyStoppingResult {
  /** Why training stopped (names as in Deeplearning4j). */
  public enum TerminationReason {
    /** An exception ended training; see {@link #getException()}. */
    Error,
    /** An {@link org.ndrt.earlystopping.IterationTerminationCondition} fired mid-epoch. */
    IterationTerminationCondition,
    /** An {@link org.ndrt.earlystopping.EpochTerminationCondition} fired after an epoch. */
    EpochTerminationCondition
  }

  private final TerminationReason reason;
  private final String details;
  private final Map<Integer, Double> scoreVsEpoch;
  private final int bestModelEpoch;
  private final double bestModelScore;
  private final int totalEpochs;
  private final Model bestModel;
  private final Exception exception;

  /**
   * @param reason why training stopped
   * @param details the condition that fired (its toString()) or the exception, with where it happened
   * @param scoreVsEpoch score of each scored epoch (copied)
   * @param bestModelEpoch the best model's epoch, -1 if none
   * @param bestModelScore its score, NaN if none
   * @param totalEpochs epochs trained to their end
   * @param bestModel the best model, or null
   * @param exception the exception for {@link TerminationReason#Error}, else null
   */
  public EarlyStoppingResult(TerminationReason reason, String details, Map<Integer, Double> scoreVsEpoch,
      int bestModelEpoch, double bestModelScore, int totalEpochs, Model bestModel, Exception exception) {
    this.reason = reason;
    this.details = details;
    this.scoreVsEpoch = Collections.unmodifiableMap(new TreeMap<>(scoreVsEpoch));
    this.bestModelEpoch = bestModelEpoch;
    this.bestModelScore = bestModelScore;
    this.totalEpochs = totalEpochs;
    this.bestModel = bestModel;
    this.exception = exception;
  }

  /** @return why training stopped */
  public TerminationReason getTerminationReason() {
    return reason;
  }

  /**
   * @return the condition that stopped training (its toString()) and the epoch, or the exception
   *     and where it happened
   */
  public String getTerminationDetails() {
    return details;
  }

  /** @return the score of each scored epoch (epochs counted from 0), in epoch order; unmodifiable */
  public Map<Integer, Double> getScoreVsEpoch() {
    return scoreVsEpoch;
  }

  /** @return the epoch of the best model (from 0), or -1 if no epoch was scored */
  public int getBestModelEpoch() {
    return bestModelEpoch;
  }

  /** @return the best model's score, or NaN if no epoch was scored */
  public double getBestModelScore() {
    return bestModelScore;
  }

  /** @return the number of epochs trained to their end (an epoch cut short by an iteration condition or an error does not count) */
  public int getTotalEpochs() {
    return totalEpochs;
  }

  /**
   * @return the best model from the saver, or null if no epoch was scored (no score calculator) or
   *     it could not be had; who closes it depends on the saver ({@link InMemoryModelSaver}: the
   *     caller, once done); as the type the caller expects ({@code MultiLayerNetwork best =
   *     r.getBestModel()} or {@code ComputationGraph best = r.getBestModel()}): the cast is
   *     unchecked, so asking for another kind than was trained throws ClassCastException at the
   *     caller's assignment
   * @param <T> the model's type (MultiLayerNetwork, ComputationGraph or Model)
   */
  @SuppressWarnings("unchecked")
  public <T extends Model> T getBestModel() {
    return (T) bestModel;
  }

  /** @return the exception that ended training ({@link TerminationReason#Error}), else null */
  public Exception getException() {
    return exception;
  }

  @Override
  public String toString() {
    return "EarlyStoppingResult(reason=" + reason + ", details=" + details + ", bestModelEpoch=" + bestModelEpoch
        + ", bestModelScore=" + bestModelScore + ", totalEpochs=" + totalEpochs + ", scoreVsEpoch=" + scoreVsEpoch + ")";
  }
}
