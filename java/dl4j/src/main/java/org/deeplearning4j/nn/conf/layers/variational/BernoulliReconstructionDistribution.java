package org.deeplearning4j.nn.conf.layers.variational;

import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;

/** Deeplearning4j's Bernoulli reconstruction distribution (configuration only: see {@link VariationalAutoencoder}). */
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
}
