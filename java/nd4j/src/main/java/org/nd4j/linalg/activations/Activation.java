package org.nd4j.linalg.activations;

import org.nd4j.linalg.activations.impl.ActivationELU;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationLReLU;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.activations.impl.ActivationSigmoid;
import org.nd4j.linalg.activations.impl.ActivationSoftPlus;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.activations.impl.ActivationTanH;

/**
 * ND4J's activation names, all of them. {@link #getActivationFunction()} gives the function for those
 * ndrt runs as runtime ops and refuses the others by name; {@link #toNdrt()} gives org.ndrt.nn's
 * layer activation.
 */
public enum Activation {
  CUBE,
  ELU,
  HARDSIGMOID,
  HARDTANH,
  IDENTITY,
  LEAKYRELU,
  RATIONALTANH,
  RELU,
  RELU6,
  RRELU,
  SIGMOID,
  SOFTMAX,
  SOFTPLUS,
  SOFTSIGN,
  TANH,
  RECTIFIEDTANH,
  SELU,
  SWISH,
  THRESHOLDEDRELU,
  GELU,
  MISH;

  /**
   * The function, with ND4J's defaults.
   *
   * @throws UnsupportedOperationException for the activations ndrt does not have as ops
   */
  public IActivation getActivationFunction() {
    switch (this) {
      case ELU: return new ActivationELU();
      case IDENTITY: return new ActivationIdentity();
      case LEAKYRELU: return new ActivationLReLU();
      case RELU: return new ActivationReLU();
      case SIGMOID: return new ActivationSigmoid();
      case SOFTMAX: return new ActivationSoftmax();
      case SOFTPLUS: return new ActivationSoftPlus();
      case TANH: return new ActivationTanH();
      default:
        throw new UnsupportedOperationException("Activation." + name() + ".getActivationFunction: not in ndrt yet (it has "
            + "ELU, IDENTITY, LEAKYRELU, RELU, SIGMOID, SOFTMAX, SOFTPLUS, TANH)");
    }
  }

  /** ND4J's lookup: the constant of that name, any case. */
  public static Activation fromString(String name) {
    return Activation.valueOf(name.toUpperCase());
  }

  /**
   * ndrt: org.ndrt.nn's layer activation of the same name (what the Deeplearning4j drop-in builds
   * layers with).
   *
   * @throws UnsupportedOperationException for those org.ndrt.nn's layers do not have
   */
  public org.ndrt.nn.conf.Activation toNdrt() {
    switch (this) {
      case IDENTITY: return org.ndrt.nn.conf.Activation.IDENTITY;
      case RELU: return org.ndrt.nn.conf.Activation.RELU;
      case LEAKYRELU: return org.ndrt.nn.conf.Activation.LEAKYRELU;
      case TANH: return org.ndrt.nn.conf.Activation.TANH;
      case SIGMOID: return org.ndrt.nn.conf.Activation.SIGMOID;
      case SOFTMAX: return org.ndrt.nn.conf.Activation.SOFTMAX;
      case ELU: return org.ndrt.nn.conf.Activation.ELU;
      default:
        throw new UnsupportedOperationException("Activation." + name() + ".toNdrt: org.ndrt.nn's layers do not have it "
            + "yet (they have IDENTITY, RELU, LEAKYRELU, TANH, SIGMOID, SOFTMAX, ELU)");
    }
  }
}
