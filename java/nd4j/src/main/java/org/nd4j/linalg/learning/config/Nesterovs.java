package org.nd4j.linalg.learning.config;

import java.util.Map;
import org.nd4j.linalg.schedule.ISchedule;

/** Nesterov momentum: ND4J's configuration class; {@link #toNdrt()} maps it to org.ndrt.nn's Nesterovs. */
public class Nesterovs implements IUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_NESTEROV_MOMENTUM = 0.9;
  public static final double DEFAULT_NESTEROV_LEARNING_RATE = 0.1;

  private double learningRate = DEFAULT_NESTEROV_LEARNING_RATE;
  private ISchedule learningRateSchedule;
  private double momentum = DEFAULT_NESTEROV_MOMENTUM;
  private ISchedule momentumISchedule;
  private Map<Integer, Double> momentumSchedule;

  public Nesterovs() {}

  public Nesterovs(double momentum) {
    this(DEFAULT_NESTEROV_LEARNING_RATE, momentum);
  }

  public Nesterovs(double learningRate, double momentum) {
    this.learningRate = learningRate;
    this.momentum = momentum;
  }

  public Nesterovs(ISchedule learningRateSchedule) {
    this.learningRateSchedule = learningRateSchedule;
  }

  public Nesterovs(ISchedule learningRateSchedule, double momentum) {
    this.learningRateSchedule = learningRateSchedule;
    this.momentum = momentum;
  }

  public Nesterovs(ISchedule learningRateSchedule, ISchedule momentumSchedule) {
    this.learningRateSchedule = learningRateSchedule;
    this.momentumISchedule = momentumSchedule;
  }

  public Nesterovs(double learningRate, ISchedule momentumSchedule) {
    this.learningRate = learningRate;
    this.momentumISchedule = momentumSchedule;
  }

  public Nesterovs(double learningRate, ISchedule learningRateSchedule, double momentum, ISchedule momentumISchedule,
      Map<Integer, Double> momentumSchedule) {
    this.learningRate = learningRate;
    this.learningRateSchedule = learningRateSchedule;
    this.momentum = momentum;
    this.momentumISchedule = momentumISchedule;
    this.momentumSchedule = momentumSchedule;
  }

  @Override
  public long stateSize(long numParams) {
    return numParams;
  }

  @Override
  public double getLearningRate(int iteration, int epoch) {
    return learningRateSchedule != null ? learningRateSchedule.valueAt(iteration, epoch) : learningRate;
  }

  public double currentMomentum(int iteration, int epoch) {
    return momentumISchedule != null ? momentumISchedule.valueAt(iteration, epoch) : momentum;
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

  public double getLearningRate() { return learningRate; }
  public void setLearningRate(double learningRate) { this.learningRate = learningRate; }
  public ISchedule getLearningRateSchedule() { return learningRateSchedule; }
  public void setLearningRateSchedule(ISchedule s) { this.learningRateSchedule = s; }
  public double getMomentum() { return momentum; }
  public void setMomentum(double momentum) { this.momentum = momentum; }
  public ISchedule getMomentumISchedule() { return momentumISchedule; }
  public void setMomentumISchedule(ISchedule s) { this.momentumISchedule = s; }
  public Map<Integer, Double> getMomentumSchedule() { return momentumSchedule; }
  public void setMomentumSchedule(Map<Integer, Double> s) { this.momentumSchedule = s; }

  @Override
  public Nesterovs clone() {
    return new Nesterovs(learningRate, learningRateSchedule == null ? null : learningRateSchedule.clone(), momentum,
        momentumISchedule == null ? null : momentumISchedule.clone(), momentumSchedule);
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    if (learningRateSchedule != null || momentumISchedule != null || momentumSchedule != null) {
      throw new UnsupportedOperationException("Nesterovs.toNdrt: learning-rate and momentum schedules are not in "
          + "org.ndrt.nn yet (it takes a fixed learning rate and momentum)");
    }
    return new org.ndrt.nn.updater.Nesterovs(learningRate, momentum);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Nesterovs && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "Nesterovs(learningRate=" + learningRate + ", learningRateSchedule=" + learningRateSchedule + ", momentum="
        + momentum + ", momentumISchedule=" + momentumISchedule + ", momentumSchedule=" + momentumSchedule + ")";
  }
}
