package org.nd4j.linalg.learning.config;

import java.io.Serializable;
import org.nd4j.linalg.schedule.ISchedule;

/**
 * An updater's configuration, as ND4J's IUpdater. ND4J's {@code instantiate(..)} (its
 * GradientUpdater) is not here: training runs in org.ndrt.nn, and {@link #toNdrt()} gives the
 * org.ndrt.nn updater of the same configuration.
 */
public interface IUpdater extends Serializable, Cloneable {
  /** State values kept per parameter, times {@code numParams}. */
  long stateSize(long numParams);

  @Override
  boolean equals(Object other);

  IUpdater clone();

  /** The learning rate at this iteration/epoch (the schedule's value when one is set); NaN if none. */
  double getLearningRate(int iteration, int epoch);

  boolean hasLearningRate();

  void setLrAndSchedule(double lr, ISchedule lrSchedule);

  /**
   * ndrt: org.ndrt.nn's updater with this configuration (what the Deeplearning4j drop-in trains with).
   *
   * @throws UnsupportedOperationException naming the updater or setting org.ndrt.nn lacks
   */
  org.ndrt.nn.updater.Updater toNdrt();
}
