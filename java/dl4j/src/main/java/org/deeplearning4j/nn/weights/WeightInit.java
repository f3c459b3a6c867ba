package org.deeplearning4j.nn.weights;

/**
 * Deeplearning4j's weight initialisation schemes, all names. XAVIER, XAVIER_UNIFORM, RELU,
 * RELU_UNIFORM, NORMAL, UNIFORM and ZERO have the same definition in org.ndrt.nn.conf.WeightInit
 * (drawn by ndrt's generator, so other numbers than Deeplearning4j's); the others are refused when the
 * network is initialised, naming the scheme.
 */
public enum WeightInit {
  DISTRIBUTION, ZERO, ONES, SIGMOID_UNIFORM, NORMAL, LECUN_NORMAL, UNIFORM, XAVIER, XAVIER_UNIFORM, XAVIER_FAN_IN,
  XAVIER_LEGACY, RELU, RELU_UNIFORM, IDENTITY, LECUN_UNIFORM, VAR_SCALING_NORMAL_FAN_IN, VAR_SCALING_NORMAL_FAN_OUT,
  VAR_SCALING_NORMAL_FAN_AVG, VAR_SCALING_UNIFORM_FAN_IN, VAR_SCALING_UNIFORM_FAN_OUT, VAR_SCALING_UNIFORM_FAN_AVG;

  /**
   * ndrt: org.ndrt.nn's scheme of the same definition.
   *
   * @throws UnsupportedOperationException for the schemes org.ndrt.nn does not have
   */
  public org.ndrt.nn.conf.WeightInit toNdrt() {
    switch (this) {
      case ZERO: return org.ndrt.nn.conf.WeightInit.ZERO;
      case NORMAL: return org.ndrt.nn.conf.WeightInit.NORMAL;
      case UNIFORM: return org.ndrt.nn.conf.WeightInit.UNIFORM;
      case XAVIER: return org.ndrt.nn.conf.WeightInit.XAVIER;
      case XAVIER_UNIFORM: return org.ndrt.nn.conf.WeightInit.XAVIER_UNIFORM;
      case RELU: return org.ndrt.nn.conf.WeightInit.RELU;
      case RELU_UNIFORM: return org.ndrt.nn.conf.WeightInit.RELU_UNIFORM;
      default:
        throw new UnsupportedOperationException("WeightInit." + name() + " is not in ndrt's Deeplearning4j drop-in: "
            + "org.ndrt.nn initialises with XAVIER, XAVIER_UNIFORM, RELU, RELU_UNIFORM, NORMAL, UNIFORM or ZERO");
    }
  }
}
