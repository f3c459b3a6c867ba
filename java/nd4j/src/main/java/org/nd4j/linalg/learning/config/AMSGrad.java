package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;
import org.ndrt.nd4j.AdamFamilyUpdater;

/** AMSGrad: ND4J's configuration class and its defaults; org.ndrt.nn has no AMSGrad yet. */
public class AMSGrad extends AdamFamilyUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_AMSGRAD_LEARNING_RATE = 1e-3;
  public static final double DEFAULT_AMSGRAD_BETA1_MEAN_DECAY = 0.9;
  public static final double DEFAULT_AMSGRAD_BETA2_VAR_DECAY = 0.999;
  public static final double DEFAULT_AMSGRAD_EPSILON = 1e-8;

  public AMSGrad() {
    this(DEFAULT_AMSGRAD_LEARNING_RATE);
  }

  public AMSGrad(double learningRate) {
    this(learningRate, DEFAULT_AMSGRAD_BETA1_MEAN_DECAY, DEFAULT_AMSGRAD_BETA2_VAR_DECAY, DEFAULT_AMSGRAD_EPSILON);
  }

  public AMSGrad(ISchedule learningRateSchedule) {
    super(DEFAULT_AMSGRAD_LEARNING_RATE, learningRateSchedule, DEFAULT_AMSGRAD_BETA1_MEAN_DECAY, DEFAULT_AMSGRAD_BETA2_VAR_DECAY,
        DEFAULT_AMSGRAD_EPSILON);
  }

  public AMSGrad(double learningRate, double beta1, double beta2, double epsilon) {
    super(learningRate, null, beta1, beta2, epsilon);
  }

  @Override
  public long stateSize(long numParams) {
    return 3L * numParams;
  }

  @Override
  public AMSGrad clone() {
    return copyInto(new AMSGrad());
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    throw new UnsupportedOperationException("AMSGrad.toNdrt: org.ndrt.nn has no AMSGrad updater yet (it has Sgd, Adam, "
        + "Nesterovs, RmsProp and AdaGrad)");
  }
}
