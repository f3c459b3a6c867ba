package org.nd4j.linalg.learning.config;

import org.nd4j.linalg.schedule.ISchedule;
import org.ndrt.nd4j.AdamFamilyUpdater;

/** Adam: ND4J's configuration class and its defaults; {@link #toNdrt()} maps it to org.ndrt.nn's Adam. */
public class Adam extends AdamFamilyUpdater {
  private static final long serialVersionUID = 1L;
  public static final double DEFAULT_ADAM_LEARNING_RATE = 1e-3;
  public static final double DEFAULT_ADAM_BETA1_MEAN_DECAY = 0.9;
  public static final double DEFAULT_ADAM_BETA2_VAR_DECAY = 0.999;
  public static final double DEFAULT_ADAM_EPSILON = 1e-8;

  public Adam() {
    this(DEFAULT_ADAM_LEARNING_RATE);
  }

  public Adam(double learningRate) {
    this(learningRate, DEFAULT_ADAM_BETA1_MEAN_DECAY, DEFAULT_ADAM_BETA2_VAR_DECAY, DEFAULT_ADAM_EPSILON);
  }

  public Adam(ISchedule learningRateSchedule) {
    super(DEFAULT_ADAM_LEARNING_RATE, learningRateSchedule, DEFAULT_ADAM_BETA1_MEAN_DECAY, DEFAULT_ADAM_BETA2_VAR_DECAY,
        DEFAULT_ADAM_EPSILON);
  }

  public Adam(double learningRate, double beta1, double beta2, double epsilon) {
    super(learningRate, null, beta1, beta2, epsilon);
  }

  @Override
  public long stateSize(long numParams) {
    return 2L * numParams;
  }

  @Override
  public Adam clone() {
    return copyInto(new Adam());
  }

  @Override
  public org.ndrt.nn.updater.Updater toNdrt() {
    requireNoSchedule();
    return new org.ndrt.nn.updater.Adam(getLearningRate(), getBeta1(), getBeta2(), getEpsilon());
  }
}
