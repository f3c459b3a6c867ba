package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;

/** No updates (frozen parameters): ND4J's configuration class. org.ndrt.nn has no such updater: toNdrt refuses. */
public class NoOp implements IUpdater {
  private static final long serialVersionUID = 1L;

  public NoOp() {}

  @Override
  public long stateSize(long numParams) {
    return 0;
  }

  @Override
  public double getLearningRate(int iteration, int epoch) {
    return Double.NaN; // no learning rate
  }

  @Override
  public boolean hasLearningRate() {
    return false;
  }

  @Override
  public void setLrAndSchedule(double lr, ISchedule lrSchedule) {
    throw new UnsupportedOperationException("Cannot set LR/schedule for NoOp updater");
  }

  @Override
  public NoOp clone() {
    return new NoOp();
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    throw new UnsupportedOperationException("NoOp.toNdrt: org.ndrt.nn has no NoOp updater (frozen layers) yet");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NoOp;
  }

  @Override
  public int hashCode() {
    return NoOp.class.hashCode();
  }

  @Override
  public String toString() {
    return "NoOp()";
  }
}
