package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;

/** AdaDelta (no learning rate): ND4J's configuration class. org.ndrt.nn has no AdaDelta: toNdrt refuses. */
public class AdaDelta implements IUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_ADADELTA_RHO = 0.95;
  public static final double DEFAULT_ADADELTA_EPSILON = 1e-6;

  private double rho = DEFAULT_ADADELTA_RHO;
  private double epsilon = DEFAULT_ADADELTA_EPSILON;

  public AdaDelta() {}

  public AdaDelta(double rho, double epsilon) {
    this.rho = rho;
    this.epsilon = epsilon;
  }

  @Override
  public long stateSize(long numParams) {
    return 2 * numParams;
  }

  @Override
  public double getLearningRate(int iteration, int epoch) {
    return Double.NaN; // AdaDelta has no learning rate
  }

  @Override
  public boolean hasLearningRate() {
    return false;
  }

  @Override
  public void setLrAndSchedule(double lr, ISchedule lrSchedule) {
    throw new UnsupportedOperationException("Cannot set learning rate or LR schedule: AdaDelta does not have a learning "
        + "rate");
  }

  public double getRho() { return rho; }
  public void setRho(double rho) { this.rho = rho; }
  public double getEpsilon() { return epsilon; }
  public void setEpsilon(double epsilon) { this.epsilon = epsilon; }

  @Override
  public AdaDelta clone() {
    return new AdaDelta(rho, epsilon);
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    throw new UnsupportedOperationException("AdaDelta.toNdrt: org.ndrt.nn has no AdaDelta updater yet (it has Sgd, Adam, "
        + "Nesterovs, RmsProp and AdaGrad)");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdaDelta && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "AdaDelta(rho=" + rho + ", epsilon=" + epsilon + ")";
  }
}
