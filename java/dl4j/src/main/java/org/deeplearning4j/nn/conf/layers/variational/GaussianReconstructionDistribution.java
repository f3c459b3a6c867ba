package org.deeplearning4j.nn.conf.layers.variational;

import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.ndrt.dl4j.Mapping;

/**
 * Deeplearning4j's Gaussian reconstruction distribution (real data): a mean and a log-variance per
 * value, the activation applied to both (default IDENTITY).
 */
public class GaussianReconstructionDistribution implements ReconstructionDistribution {
  private static final long serialVersionUID = 1L;

  private Activation activation = Activation.IDENTITY;
  private IActivation activationFn;

  public GaussianReconstructionDistribution() {}

  public GaussianReconstructionDistribution(Activation activation) {
    this.activation = activation;
  }

  public GaussianReconstructionDistribution(IActivation activationFn) {
    this.activationFn = activationFn;
    this.activation = null;
  }

  @Override
  public boolean hasLossFunction() {
    return false;
  }

  @Override
  public int distributionInputSize(int dataSize) {
    return 2 * dataSize;
  }

  @Override
  public org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction ndrt() {
    return org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction.gaussian(Mapping.activation(activation, activationFn));
  }

  @Override
  public String toString() {
    return "GaussianReconstructionDistribution(afn=" + (activationFn != null ? activationFn : activation) + ")";
  }
}
