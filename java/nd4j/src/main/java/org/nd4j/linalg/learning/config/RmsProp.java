package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;

/** RMSProp: ND4J's configuration class, its defaults and toString; {@link #toNdrt()} maps it to org.ndrt.nn. */
public class RmsProp implements IUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_RMSPROP_LEARNING_RATE = 1e-1;
  public static final double DEFAULT_RMSPROP_RMSDECAY = 0.95;
  public static final double DEFAULT_RMSPROP_EPSILON = 1e-8;

  private double learningRate = DEFAULT_RMSPROP_LEARNING_RATE;
  private ISchedule learningRateSchedule;
  private double rmsDecay = DEFAULT_RMSPROP_RMSDECAY;
  private double epsilon = DEFAULT_RMSPROP_EPSILON;

  public RmsProp() {}

  public RmsProp(double learningRate) {
    this.learningRate = learningRate;
  }

  public RmsProp(ISchedule learningRateSchedule) {
    this.learningRateSchedule = learningRateSchedule;
  }

  public RmsProp(double learningRate, double rmsDecay, double epsilon) {
    this.learningRate = learningRate;
    this.rmsDecay = rmsDecay;
    this.epsilon = epsilon;
  }

  @Override
  public long stateSize(long numParams) {
    return 1L * numParams;
  }

  @Override
  public double getLearningRate(int iteration, int epoch) {
    return learningRateSchedule != null ? learningRateSchedule.valueAt(iteration, epoch) : learningRate;
  }

  @Override
  public boolean hasLearningRate() {
    return true;
  }

  @Override
  public void setLrAndSchedule(double lr, ISchedule lrSchedule) {
    this.learningRate = lr;
    this.learningRateSchedule = lrSchedule;
  }

  public double getLearningRate() {
    return learningRate;
  }

  public void setLearningRate(double learningRate) {
    this.learningRate = learningRate;
  }

  public ISchedule getLearningRateSchedule() {
    return learningRateSchedule;
  }

  public void setLearningRateSchedule(ISchedule learningRateSchedule) {
    this.learningRateSchedule = learningRateSchedule;
  }

  public double getRmsDecay() {
    return rmsDecay;
  }

  public void setRmsDecay(double rmsDecay) {
    this.rmsDecay = rmsDecay;
  }

  public double getEpsilon() {
    return epsilon;
  }

  public void setEpsilon(double epsilon) {
    this.epsilon = epsilon;
  }

  @Override
  public RmsProp clone() {
    RmsProp c = new RmsProp(learningRate, rmsDecay, epsilon);
    c.learningRateSchedule = learningRateSchedule == null ? null : learningRateSchedule.clone();
    return c;
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    if (learningRateSchedule != null) {
      throw new UnsupportedOperationException("RmsProp.toNdrt: a learning-rate schedule (" + learningRateSchedule
          + ") is not in org.ndrt.nn yet (it takes a fixed learning rate)");
    }
    return new org.ndrt.nn.updater.RmsProp(learningRate, rmsDecay, epsilon);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RmsProp && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "RmsProp(learningRate=" + learningRate + ", learningRateSchedule=" + learningRateSchedule + ", rmsDecay=" + rmsDecay + ", epsilon=" + epsilon + ")";
  }
}
