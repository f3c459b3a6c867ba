package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;
import org.ndrt.nd4j.AdamFamilyUpdater;

/** Nesterov-accelerated Adam: ND4J's configuration class and its defaults; org.ndrt.nn has no Nadam yet. */
public class Nadam extends AdamFamilyUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_NADAM_LEARNING_RATE = 1e-3;
  public static final double DEFAULT_NADAM_BETA1_MEAN_DECAY = 0.9;
  public static final double DEFAULT_NADAM_BETA2_VAR_DECAY = 0.999;
  public static final double DEFAULT_NADAM_EPSILON = 1e-8;

  public Nadam() {
    this(DEFAULT_NADAM_LEARNING_RATE);
  }

  public Nadam(double learningRate) {
    this(learningRate, DEFAULT_NADAM_BETA1_MEAN_DECAY, DEFAULT_NADAM_BETA2_VAR_DECAY, DEFAULT_NADAM_EPSILON);
  }

  public Nadam(ISchedule learningRateSchedule) {
    super(DEFAULT_NADAM_LEARNING_RATE, learningRateSchedule, DEFAULT_NADAM_BETA1_MEAN_DECAY, DEFAULT_NADAM_BETA2_VAR_DECAY,
        DEFAULT_NADAM_EPSILON);
  }

  public Nadam(double learningRate, double beta1, double beta2, double epsilon) {
    super(learningRate, null, beta1, beta2, epsilon);
  }

  @Override
  public long stateSize(long numParams) {
    return 2L * numParams;
  }

  @Override
  public Nadam clone() {
    return copyInto(new Nadam());
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    throw new UnsupportedOperationException("Nadam.toNdrt: org.ndrt.nn has no Nadam updater yet (it has Sgd, Adam, "
        + "Nesterovs, RmsProp and AdaGrad)");
  }
}
