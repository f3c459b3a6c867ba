package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;
import org.ndrt.nd4j.AdamFamilyUpdater;

/** AdaMax (Adam with the infinity norm): ND4J's configuration class and its defaults; org.ndrt.nn has no AdaMax yet. */
public class AdaMax extends AdamFamilyUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_ADAMAX_LEARNING_RATE = 1e-3;
  public static final double DEFAULT_ADAMAX_BETA1_MEAN_DECAY = 0.9;
  public static final double DEFAULT_ADAMAX_BETA2_VAR_DECAY = 0.999;
  public static final double DEFAULT_ADAMAX_EPSILON = 1e-8;

  public AdaMax() {
    this(DEFAULT_ADAMAX_LEARNING_RATE);
  }

  public AdaMax(double learningRate) {
    this(learningRate, DEFAULT_ADAMAX_BETA1_MEAN_DECAY, DEFAULT_ADAMAX_BETA2_VAR_DECAY, DEFAULT_ADAMAX_EPSILON);
  }

  public AdaMax(ISchedule learningRateSchedule) {
    super(DEFAULT_ADAMAX_LEARNING_RATE, learningRateSchedule, DEFAULT_ADAMAX_BETA1_MEAN_DECAY, DEFAULT_ADAMAX_BETA2_VAR_DECAY,
        DEFAULT_ADAMAX_EPSILON);
  }

  public AdaMax(double learningRate, double beta1, double beta2, double epsilon) {
    super(learningRate, null, beta1, beta2, epsilon);
  }

  @Override
  public long stateSize(long numParams) {
    return 2L * numParams;
  }

  @Override
  public AdaMax clone() {
    return copyInto(new AdaMax());
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    throw new UnsupportedOperationException("AdaMax.toNdrt: org.ndrt.nn has no AdaMax updater yet (it has Sgd, Adam, "
        + "Nesterovs, RmsProp and AdaGrad)");
  }
}
