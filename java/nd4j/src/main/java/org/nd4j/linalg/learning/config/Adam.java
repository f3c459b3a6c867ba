package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;

/** Adam: ND4J's configuration class, its defaults and toString; {@link #toNdrt()} maps it to org.ndrt.nn. */
public class Adam implements IUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_ADAM_LEARNING_RATE = 1e-3;
  public static final double DEFAULT_ADAM_BETA1_MEAN_DECAY = 0.9;
  public static final double DEFAULT_ADAM_BETA2_VAR_DECAY = 0.999;
  public static final double DEFAULT_ADAM_EPSILON = 1e-8;

  private double learningRate = DEFAULT_ADAM_LEARNING_RATE;
  private ISchedule learningRateSchedule;
  private double beta1 = DEFAULT_ADAM_BETA1_MEAN_DECAY;
  private double beta2 = DEFAULT_ADAM_BETA2_VAR_DECAY;
  private double epsilon = DEFAULT_ADAM_EPSILON;

  public Adam() {}

  public Adam(double learningRate) {
    this.learningRate = learningRate;
  }

  public Adam(ISchedule learningRateSchedule) {
    this.learningRateSchedule = learningRateSchedule;
  }

  public Adam(double learningRate, double beta1, double beta2, double epsilon) {
    this.learningRate = learningRate;
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = epsilon;
  }

  @Override
  public long stateSize(long numParams) {
    return 2L * numParams;
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

  public double getBeta1() {
    return beta1;
  }

  public void setBeta1(double beta1) {
    this.beta1 = beta1;
  }

  public double getBeta2() {
    return beta2;
  }

  public void setBeta2(double beta2) {
    this.beta2 = beta2;
  }

  public double getEpsilon() {
    return epsilon;
  }

  public void setEpsilon(double epsilon) {
    this.epsilon = epsilon;
  }

  @Override
  public Adam clone() {
    Adam c = new Adam(learningRate, beta1, beta2, epsilon);
    c.learningRateSchedule = learningRateSchedule == null ? null : learningRateSchedule.clone();
    return c;
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    if (learningRateSchedule != null) {
      throw new UnsupportedOperationException("Adam.toNdrt: a learning-rate schedule (" + learningRateSchedule
          + ") is not in org.ndrt.nn yet (it takes a fixed learning rate)");
    }
    return new org.ndrt.nn.updater.Adam(learningRate, beta1, beta2, epsilon);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Adam && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "Adam(learningRate=" + learningRate + ", learningRateSchedule=" + learningRateSchedule + ", beta1=" + beta1 + ", beta2=" + beta2 + ", epsilon=" + epsilon + ")";
  }
}
