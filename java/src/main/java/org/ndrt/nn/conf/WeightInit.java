package org.ndrt.nn.conf;

/**
 * Weight initialisation schemes, as Deeplearning4j defines them (fanIn = inputs per output unit,
 * for a convolution inChannels * kH * kW; fanOut = nOut * kH * kW). Drawn by the runtime's Philox
 * generator from the configuration's seed, so the same seed gives the same weights on any thread
 * count or device. Biases start at zero.
 */
public enum WeightInit {
  /** Normal(0, sqrt(2 / (fanIn + fanOut))). */
  XAVIER,
  /** Uniform(-a, a), a = sqrt(6 / (fanIn + fanOut)). */
  XAVIER_UNIFORM,
  /** He: Normal(0, sqrt(2 / fanIn)). */
  RELU,
  /** He uniform: Uniform(-a, a), a = sqrt(6 / fanIn). */
  RELU_UNIFORM,
  /** Normal(0, 1 / sqrt(fanIn)). */
  NORMAL,
  /** Uniform(-a, a), a = 1 / sqrt(fanIn). */
  UNIFORM,
  /** All zeros (for tests and special layers; a network of zeros does not learn). */
  ZERO;

  /** True for the schemes drawn from a normal distribution. */
  public boolean isNormal() {
    return this == XAVIER || this == RELU || this == NORMAL;
  }

  /** The standard deviation (normal schemes) or the half-width a (uniform schemes). */
  public double scale(long fanIn, long fanOut) {
    switch (this) {
      case XAVIER: return Math.sqrt(2.0 / (fanIn + fanOut));
      case XAVIER_UNIFORM: return Math.sqrt(6.0 / (fanIn + fanOut));
      case RELU: return Math.sqrt(2.0 / fanIn);
      case RELU_UNIFORM: return Math.sqrt(6.0 / fanIn);
      case NORMAL:
      case UNIFORM: return 1.0 / Math.sqrt(fanIn);
      default: return 0;
    }
  }
}
