package org.deeplearning4j.nn.conf.layers.variational;

import java.io.Serializable;

/**
 * Deeplearning4j's VAE reconstruction distribution p(x|z), as configuration: org.ndrt.nn's
 * VariationalAutoencoder computes it ({@link #ndrt()} says which; those it lacks refuse by name).
 */
public interface ReconstructionDistribution extends Serializable {
  /** True for a LossFunctionWrapper (a loss, not a probability). */
  boolean hasLossFunction();

  /** The size of the distribution's parameters for data of {@code dataSize} values per example. */
  int distributionInputSize(int dataSize);

  /** ndrt: org.ndrt.nn's distribution; UnsupportedOperationException naming what it lacks. */
  org.ndrt.nn.conf.layers.VariationalAutoencoder.Reconstruction ndrt();
}
