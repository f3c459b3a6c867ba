package org.deeplearning4j.nn.conf.layers.variational;

import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.lossfunctions.ILossFunction;

/**
 * Deeplearning4j's loss function in place of a reconstruction distribution (the builder's
 * lossFunction(..)): configuration only, refused when the network is initialised.
 */
public class LossFunctionWrapper implements ReconstructionDistribution {
  private static final long serialVersionUID = 1L;

  private final Object activationFn;
  private final Object lossFunction;

  public LossFunctionWrapper(IActivation activationFn, ILossFunction lossFunction) {
    this.activationFn = activationFn;
    this.lossFunction = lossFunction;
  }

  public LossFunctionWrapper(org.nd4j.linalg.activations.Activation activation, ILossFunction lossFunction) {
    this.activationFn = activation;
    this.lossFunction = lossFunction;
  }

  /** The builder's lossFunction(activation, LossFunctions.LossFunction), kept by name (refused at initialisation). */
  LossFunctionWrapper(Object activation, Object lossFunction) {
    this.activationFn = activation;
    this.lossFunction = lossFunction;
  }

  @Override
  public boolean hasLossFunction() {
    return true;
  }

  @Override
  public int distributionInputSize(int dataSize) {
    return dataSize;
  }

  @Override
  public org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction ndrt() {
    throw new UnsupportedOperationException("VariationalAutoencoder: a loss function (LossFunctionWrapper, lossFunction(..))"
        + " in place of a reconstruction distribution is not in org.ndrt.nn (it has the Bernoulli and Gaussian"
        + " reconstruction distributions)");
  }

  @Override
  public String toString() {
    return "LossFunctionWrapper(afn=" + activationFn + ", lossFn=" + lossFunction + ")";
  }
}
