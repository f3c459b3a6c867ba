package org.deeplearning4j.nn.weights;

/**
 * Deeplearning4j's weight initialisation schemes, all names: each is org.ndrt.nn.conf.WeightInit's of
 * the same name and formula (drawn by ndrt's generator from the network seed, so other numbers than
 * Deeplearning4j's). DISTRIBUTION comes with a distribution ({@code weightInit(Distribution)}).
 */
public enum WeightInit {
  DISTRIBUTION, ZERO, ONES, SIGMOID_UNIFORM, NORMAL, LECUN_NORMAL, UNIFORM, XAVIER, XAVIER_UNIFORM, XAVIER_FAN_IN,
  XAVIER_LEGACY, RELU, RELU_UNIFORM, IDENTITY, LECUN_UNIFORM, VAR_SCALING_NORMAL_FAN_IN, VAR_SCALING_NORMAL_FAN_OUT,
  VAR_SCALING_NORMAL_FAN_AVG, VAR_SCALING_UNIFORM_FAN_IN, VAR_SCALING_UNIFORM_FAN_OUT, VAR_SCALING_UNIFORM_FAN_AVG;

  /** ndrt: org.ndrt.nn's scheme of the same name and definition. */
  public org.ndrt.nn.conf.WeightInit toNdrt() {
    return org.ndrt.nn.conf.WeightInit.valueOf(name());
  }
}
