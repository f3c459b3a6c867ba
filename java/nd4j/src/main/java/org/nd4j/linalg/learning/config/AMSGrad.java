package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;

/** AMSGrad: ND4J's configuration class, its defaults and toString; {@link #toNdrt()} maps it to org.ndrt.nn. */
public class AMSGrad implements IUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_AMSGRAD_LEARNING_RATE = 1e-3;
  public static final double DEFAULT_AMSGRAD_BETA1_MEAN_DECAY = 0.9;
  public static final double DEFAULT_AMSGRAD_BETA2_VAR_DECAY = 0.999;
  public static final double DEFAULT_AMSGRAD_EPSILON = 1e-8;

  private double learningRate = DEFAULT_AMSGRAD_LEARNING_RATE;
  private ISchedule learningRateSchedule;
  private double beta1 = DEFAULT_AMSGRAD_BETA1_MEAN_DECAY;
  private double beta2 = DEFAULT_AMSGRAD_BETA2_VAR_DECAY;
  private double epsilon = DEFAULT_AMSGRAD_EPSILON;

  public AMSGrad() {}

  public AMSGrad(double learningRate) {
    this.learningRate = learningRate;
  }

  public AMSGrad(ISchedule learningRateSchedule) {
    this.learningRateSchedule = learningRateSchedule;
  }

  public AMSGrad(double learningRate, double beta1, double beta2, double epsilon) {
    this.learningRate = learningRate;
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = epsilon;
  }

  @Override
  public long stateSize(long numParams) {
    return 3L * numParams;
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
  public AMSGrad clone() {
    AMSGrad c = new AMSGrad(learningRate, beta1, beta2, epsilon);
    c.learningRateSchedule = learningRateSchedule == null ? null : learningRateSchedule.clone();
    return c;
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    throw new UnsupportedOperationException("AMSGrad.toNdrt: org.ndrt.nn has no AMSGrad updater yet (it has Sgd, Adam, "
        + "Nesterovs, RmsProp and AdaGrad)");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AMSGrad && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "AMSGrad(learningRate=" + learningRate + ", learningRateSchedule=" + learningRateSchedule + ", beta1=" + beta1 + ", beta2=" + beta2 + ", epsilon=" + epsilon + ")";
  }
}
