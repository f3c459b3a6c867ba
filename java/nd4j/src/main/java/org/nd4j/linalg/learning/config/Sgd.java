package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;

/** Plain stochastic gradient descent: ND4J's configuration class, its defaults and toString; {@link #toNdrt()} maps it to org.ndrt.nn. */
public class Sgd implements IUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_SGD_LR = 1e-3;

  private double learningRate = DEFAULT_SGD_LR;
  private ISchedule learningRateSchedule;

  public Sgd() {}

  public Sgd(double learningRate) {
    this.learningRate = learningRate;
  }

  public Sgd(ISchedule learningRateSchedule) {
    this.learningRateSchedule = learningRateSchedule;
  }

  @Override
  public long stateSize(long numParams) {
    return 0L * numParams;
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

  @Override
  public Sgd clone() {
    Sgd c = new Sgd(learningRate);
    c.learningRateSchedule = learningRateSchedule == null ? null : learningRateSchedule.clone();
    return c;
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    if (learningRateSchedule != null) {
      throw new UnsupportedOperationException("Sgd.toNdrt: a learning-rate schedule (" + learningRateSchedule
          + ") is not in org.ndrt.nn yet (it takes a fixed learning rate)");
    }
    return new org.ndrt.nn.updater.Sgd(learningRate);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Sgd && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "Sgd(learningRate=" + learningRate + ", learningRateSchedule=" + learningRateSchedule + ")";
  }
}
