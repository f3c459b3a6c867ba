package org.ndrt.nn.conf;

/**
 * Weight initialisation schemes with Deeplearning4j 1.0.0-M2.1's names and formulas. fanIn and
 * fanOut are Deeplearning4j's: a dense layer nIn and nOut; a convolution inChannels * kH * kW and
 * nOut * kH * kW / (strideH * strideW); an LSTM / GRU nOut and nIn + nOut. Drawn by the runtime's
 * Philox generator from the configuration's seed (so the same seed gives the same weights on any
 * thread count or device; the numbers differ from Deeplearning4j's). Biases start at 0 unless the
 * layer sets {@code biasInit}.
 */
public enum WeightInit {
  /** All zeros (a network of zeros does not learn). */
  ZERO,
  /** All ones. */
  ONES,
  /** Uniform(-r, r), r = 4 sqrt(6 / (fanIn + fanOut)). */
  SIGMOID_UNIFORM,
  /** Normal(0, 1 / sqrt(fanIn)). */
  NORMAL,
  /** As NORMAL. */
  LECUN_NORMAL,
  /** Uniform(-a, a), a = 3 / sqrt(fanIn). */
  LECUN_UNIFORM,
  /** Uniform(-a, a), a = 1 / sqrt(fanIn). */
  UNIFORM,
  /** Normal(0, sqrt(2 / (fanIn + fanOut))). */
  XAVIER,
  /** Uniform(-a, a), a = sqrt(6 / (fanIn + fanOut)). */
  XAVIER_UNIFORM,
  /** As NORMAL. */
  XAVIER_FAN_IN,
  /** Normal(0, 1 / sqrt(shape[0] + shape[1])). */
  XAVIER_LEGACY,
  /** He: Normal(0, sqrt(2 / fanIn)). */
  RELU,
  /** He uniform: Uniform(-a, a), a = sqrt(6 / fanIn). */
  RELU_UNIFORM,
  /**
   * The identity: a square matrix, or a convolution with nOut == nIn and odd kernel sizes (1 at the
   * kernel's centre of channel i to i).
   */
  IDENTITY,
  /** Normal(0, sqrt(1 / fanIn)) truncated at 2 standard deviations. */
  VAR_SCALING_NORMAL_FAN_IN,
  /** Normal(0, sqrt(1 / fanOut)) truncated at 2 standard deviations. */
  VAR_SCALING_NORMAL_FAN_OUT,
  /** Normal(0, sqrt(2 / (fanIn + fanOut))) truncated at 2 standard deviations. */
  VAR_SCALING_NORMAL_FAN_AVG,
  /** Uniform(-a, a), a = 3 / sqrt(fanIn). */
  VAR_SCALING_UNIFORM_FAN_IN,
  /** Uniform(-a, a), a = 3 / sqrt(fanOut). */
  VAR_SCALING_UNIFORM_FAN_OUT,
  /** Uniform(-a, a), a = 3 / sqrt((fanIn + fanOut) / 2). */
  VAR_SCALING_UNIFORM_FAN_AVG,
  /** From the layer's {@link Distribution} ({@code weightInit(Distribution)}). */
  DISTRIBUTION
}
