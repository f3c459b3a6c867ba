package org.deeplearning4j.nn.conf.layers.variational;

import java.io.Serializable;

/** Deeplearning4j's VAE reconstruction distribution (configuration only: see {@link VariationalAutoencoder}). */
public interface ReconstructionDistribution extends Serializable {}
