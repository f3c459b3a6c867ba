package org.deeplearning4j.nn.conf.layers.variational;

import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;

/**
 * Deeplearning4j's VariationalAutoencoder, as configuration only: org.ndrt.nn has no variational
 * autoencoder (nor layerwise pretraining). The network refuses it when initialised
 * (UnsupportedOperationException naming it), so programs that use it compile and say what is missing.
 */
public class VariationalAutoencoder extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected int[] encoderLayerSizes = {100};
  protected int[] decoderLayerSizes = {100};
  protected ReconstructionDistribution outputDistribution;
  protected Activation pzxActivation = Activation.IDENTITY;
  protected IActivation pzxActivationFn;
  protected int numSamples = 1;

  protected VariationalAutoencoder() {}

  protected VariationalAutoencoder(Builder b) {
    super(b);
    encoderLayerSizes = b.encoderLayerSizes.clone();
    decoderLayerSizes = b.decoderLayerSizes.clone();
    outputDistribution = b.outputDistribution;
    pzxActivation = b.pzxActivation;
    pzxActivationFn = b.pzxActivationFn;
    numSamples = b.numSamples;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    throw refuse("the layer itself (org.ndrt.nn has no variational autoencoder and no layerwise pretraining)");
  }

  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    protected int[] encoderLayerSizes = {100};
    protected int[] decoderLayerSizes = {100};
    protected ReconstructionDistribution outputDistribution;
    protected Activation pzxActivation = Activation.IDENTITY;
    protected IActivation pzxActivationFn;
    protected int numSamples = 1;

    public Builder encoderLayerSizes(int... sizes) {
      this.encoderLayerSizes = sizes.clone();
      return this;
    }

    public Builder decoderLayerSizes(int... sizes) {
      this.decoderLayerSizes = sizes.clone();
      return this;
    }

    public Builder reconstructionDistribution(ReconstructionDistribution distribution) {
      this.outputDistribution = distribution;
      return this;
    }

    public Builder pzxActivationFunction(Activation a) {
      this.pzxActivation = a;
      return this;
    }

    public Builder pzxActivationFunction(IActivation a) {
      this.pzxActivationFn = a;
      return this;
    }

    public Builder numSamples(int numSamples) {
      this.numSamples = numSamples;
      return this;
    }

    @Override
    public VariationalAutoencoder build() {
      return new VariationalAutoencoder(this);
    }
  }
}
