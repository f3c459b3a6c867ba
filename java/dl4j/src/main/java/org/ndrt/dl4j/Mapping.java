package org.ndrt.dl4j;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** Deeplearning4j's configuration values to org.ndrt.nn's, each refusing by name what org.ndrt.nn lacks. */
public final class Mapping {
  private Mapping() {}

  /** The activation given as ND4J's enum or as a function object (by its class: ActivationReLU is RELU, ...). */
  public static org.ndrt.nn.conf.Activation activation(Activation a, IActivation fn) {
    if (fn == null) {
      return a.toNdrt();
    }
    String n = fn.getClass().getSimpleName();
    switch (n) {
      case "ActivationIdentity": return org.ndrt.nn.conf.Activation.IDENTITY;
      case "ActivationReLU": return org.ndrt.nn.conf.Activation.RELU;
      case "ActivationLReLU": return org.ndrt.nn.conf.Activation.LEAKYRELU;
      case "ActivationTanH": return org.ndrt.nn.conf.Activation.TANH;
      case "ActivationSigmoid": return org.ndrt.nn.conf.Activation.SIGMOID;
      case "ActivationSoftmax": return org.ndrt.nn.conf.Activation.SOFTMAX;
      case "ActivationELU": return org.ndrt.nn.conf.Activation.ELU;
      default:
        throw new UnsupportedOperationException("activation " + n + ": org.ndrt.nn's layers do not have it (they have "
            + "IDENTITY, RELU, LEAKYRELU, TANH, SIGMOID, SOFTMAX, ELU)");
    }
  }

  public static org.ndrt.nn.conf.WeightInit weightInit(WeightInit w, Layer who) {
    try {
      return w.toNdrt();
    } catch (UnsupportedOperationException e) {
      throw new UnsupportedOperationException(who.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /** A layer's weight distribution (Deeplearning4j's conf.distribution classes). */
  public static org.ndrt.nn.conf.Distribution distribution(org.deeplearning4j.nn.conf.distribution.Distribution d,
      Layer who) {
    try {
      return d.toNdrt();
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      String m = who.getClass().getSimpleName() + ": " + e.getMessage();
      throw e instanceof UnsupportedOperationException ? new UnsupportedOperationException(m, e)
          : new IllegalArgumentException(m, e);
    }
  }

  /** The loss given as ND4J's enum or as a loss object (by class: LossMCXENT is MCXENT, ...). */
  public static org.ndrt.nn.conf.LossFunction loss(LossFunctions.LossFunction l, ILossFunction fn) {
    if (fn == null) {
      if (l == null) {
        throw new IllegalArgumentException("the output layer has no loss function");
      }
      return l.toNdrt();
    }
    String n = fn.getClass().getSimpleName();
    if (classWeights(fn)) {
      throw new UnsupportedOperationException("loss function " + fn + ": class weights are not in org.ndrt.nn's output "
          + "layers");
    }
    switch (n) {
      case "LossMCXENT": return org.ndrt.nn.conf.LossFunction.MCXENT;
      case "LossNegativeLogLikelihood": return org.ndrt.nn.conf.LossFunction.NEGATIVELOGLIKELIHOOD;
      case "LossMSE": return org.ndrt.nn.conf.LossFunction.MSE;
      case "LossBinaryXENT": return org.ndrt.nn.conf.LossFunction.XENT;
      case "LossMAE": return org.ndrt.nn.conf.LossFunction.L1;
      default:
        throw new UnsupportedOperationException("loss function " + n + ": org.ndrt.nn's output layers do not have it "
            + "(they have MCXENT, NEGATIVELOGLIKELIHOOD, MSE, XENT, MEAN_ABSOLUTE_ERROR)");
    }
  }

  /** True when an ND4J loss carries class weights (BaseLoss keeps them in a protected field, no getter). */
  private static boolean classWeights(ILossFunction fn) {
    if (!(fn instanceof org.ndrt.nd4j.BaseLoss)) {
      return false;
    }
    try {
      java.lang.reflect.Field f = org.ndrt.nd4j.BaseLoss.class.getDeclaredField("weights");
      f.setAccessible(true);
      return f.get(fn) != null;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  public static org.ndrt.nn.conf.layers.ConvMode convMode(ConvolutionMode m, Layer who) {
    if (m == null || m == ConvolutionMode.Truncate) {
      return org.ndrt.nn.conf.layers.ConvMode.Truncate;
    }
    if (m == ConvolutionMode.Same) {
      return org.ndrt.nn.conf.layers.ConvMode.Same;
    }
    throw new UnsupportedOperationException(who.getClass().getSimpleName() + ": convolutionMode(" + m + ") is not in "
        + "org.ndrt.nn (it has Truncate and Same)");
  }

  public static org.ndrt.nn.conf.layers.PoolingType pooling(org.deeplearning4j.nn.conf.layers.PoolingType p, Layer who) {
    if (p == org.deeplearning4j.nn.conf.layers.PoolingType.PNORM) {
      throw new UnsupportedOperationException(who.getClass().getSimpleName() + ": PoolingType.PNORM is not in org.ndrt.nn");
    }
    return org.ndrt.nn.conf.layers.PoolingType.valueOf(p.name());
  }
}
