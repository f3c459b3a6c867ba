package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;

/** AdaGrad: ND4J's configuration class, its defaults and toString; {@link #toNdrt()} maps it to org.ndrt.nn. */
public class AdaGrad implements IUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_ADAGRAD_LEARNING_RATE = 1e-1;
  public static final double DEFAULT_ADAGRAD_EPSILON = 1e-6;

  private double learningRate = DEFAULT_ADAGRAD_LEARNING_RATE;
  private ISchedule learningRateSchedule;
  private double epsilon = DEFAULT_ADAGRAD_EPSILON;

  public AdaGrad() {}

  public AdaGrad(double learningRate) {
    this.learningRate = learningRate;
  }

  public AdaGrad(ISchedule learningRateSchedule) {
    this.learningRateSchedule = learningRateSchedule;
  }

  public AdaGrad(double learningRate, double epsilon) {
    this.learningRate = learningRate;
    this.epsilon = epsilon;
  }

  public AdaGrad(ISchedule learningRateSchedule, double epsilon) {
    this.learningRateSchedule = learningRateSchedule;
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

  public double getEpsilon() {
    return epsilon;
  }

  public void setEpsilon(double epsilon) {
    this.epsilon = epsilon;
  }

  @Override
  public AdaGrad clone() {
    AdaGrad c = new AdaGrad(learningRate, epsilon);
    c.learningRateSchedule = learningRateSchedule == null ? null : learningRateSchedule.clone();
    return c;
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    if (learningRateSchedule != null) {
      throw new UnsupportedOperationException("AdaGrad.toNdrt: a learning-rate schedule (" + learningRateSchedule
          + ") is not in org.ndrt.nn yet (it takes a fixed learning rate)");
    }
    return new org.ndrt.nn.updater.AdaGrad(learningRate, epsilon);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdaGrad && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "AdaGrad(learningRate=" + learningRate + ", learningRateSchedule=" + learningRateSchedule + ", epsilon=" + epsilon + ")";
  }
}
