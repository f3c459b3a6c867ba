package org.deeplearning4j.nn.conf.layers.variational;

import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.ndrt.dl4j.Mapping;

/** Deeplearning4j's Bernoulli reconstruction distribution (binary or [0, 1] data); ndrt takes the sigmoid only. */
public class BernoulliReconstructionDistribution implements ReconstructionDistribution {
  private static final long serialVersionUID = 1L;

  private Activation activation = Activation.SIGMOID;
  private IActivation activationFn;

  public BernoulliReconstructionDistribution() {}

  public BernoulliReconstructionDistribution(Activation activation) {
    this.activation = activation;
  }

  public BernoulliReconstructionDistribution(IActivation activationFn) {
    this.activationFn = activationFn;
    this.activation = null;
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
    return org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction.bernoulli(Mapping.activation(activation, activationFn));
  }

  @Override
  public String toString() {
    return "BernoulliReconstructionDistribution(afn=" + (activationFn != null ? activationFn : activation) + ")";
  }
}
