package org.ndrt.nd4j;

import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.schedule.ISchedule;

/**
 * What ND4J's Adam, AdaMax, Nadam and AMSGrad configurations share: a learning rate or schedule, two
 * decay rates and epsilon, with ND4J's getters, setters and toString. Each subclass keeps ND4J's
 * constructors, default constants, state size and its mapping to org.ndrt.nn ({@link #toNdrt()}).
 */
public abstract class AdamFamilyUpdater implements IUpdater {
  private static final long serialVersionUID = 1L;

  private double learningRate;
  private ISchedule learningRateSchedule;
  private double beta1;
  private double beta2;
  private double epsilon;

  protected AdamFamilyUpdater(double learningRate, ISchedule schedule, double beta1, double beta2, double epsilon) {
    this.learningRate = learningRate;
    this.learningRateSchedule = schedule;
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = epsilon;
  }

  /** The same configuration, the schedule cloned, for {@code clone()}. */
  protected <T extends AdamFamilyUpdater> T copyInto(T c) {
    c.setLrAndSchedule(learningRate, learningRateSchedule == null ? null : learningRateSchedule.clone());
    c.setBeta1(beta1);
    c.setBeta2(beta2);
    c.setEpsilon(epsilon);
    return c;
  }

  /** The refusal of a schedule org.ndrt.nn cannot follow (it takes a fixed learning rate). */
  protected void requireNoSchedule() {
    if (learningRateSchedule != null) {
      throw new UnsupportedOperationException(getClass().getSimpleName() + ".toNdrt: a learning-rate schedule ("
          + learningRateSchedule + ") is not in org.ndrt.nn yet (it takes a fixed learning rate)");
    }
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
  public abstract AdamFamilyUpdater clone();

  @Override
  public boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(learningRate=" + learningRate + ", learningRateSchedule="
        + learningRateSchedule + ", beta1=" + beta1 + ", beta2=" + beta2 + ", epsilon=" + epsilon + ")";
  }
}
