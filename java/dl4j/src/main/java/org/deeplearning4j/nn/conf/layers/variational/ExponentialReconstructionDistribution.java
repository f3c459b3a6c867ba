package org.deeplearning4j.nn.conf.layers.variational;

import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;

/** Deeplearning4j's exponential reconstruction distribution: configuration only, refused when the network is initialised. */
public class ExponentialReconstructionDistribution implements ReconstructionDistribution {
  private static final long serialVersionUID = 1L;

  private final Object activation;

  public ExponentialReconstructionDistribution() {
    this(Activation.IDENTITY);
  }

  public ExponentialReconstructionDistribution(Activation activation) {
    this.activation = activation;
  }

  public ExponentialReconstructionDistribution(IActivation activationFn) {
    this.activation = activationFn;
  }

  @Override
  public boolean hasLossFunction() {
    return false;
  }

  @Override
  public int distributionInputSize(int dataSize) {
    return dataSize;
  }

  @Override
  public org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction ndrt() {
    throw new UnsupportedOperationException("VariationalAutoencoder: ExponentialReconstructionDistribution is not in "
        + "org.ndrt.nn (it has the Bernoulli and Gaussian reconstruction distributions)");
  }

  @Override
  public String toString() {
    return "ExponentialReconstructionDistribution(afn=" + activation + ")";
  }
}
