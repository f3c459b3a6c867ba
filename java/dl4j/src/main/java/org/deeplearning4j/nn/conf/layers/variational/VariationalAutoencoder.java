package org.deeplearning4j.nn.conf.layers.variational;

import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.dl4j.Mapping;

/**
 * Deeplearning4j's VariationalAutoencoder layer configuration, onto org.ndrt.nn's
 * (org.ndrt.nn.conf.layers.VariationalAutoencoder): encoder and decoder sizes, the layer's activation
 * for both, pzxActivationFunction on q(z|x)'s mean and log-variance, the reconstruction distribution
 * (Bernoulli with sigmoid, Gaussian; others refused by name at initialisation), numSamples. Trained by
 * MultiLayerNetwork.pretrain; in a network its output is the mean of q(z|x).
 */
public class VariationalAutoencoder extends FeedForwardLayer {
  private static final long serialVersionUID = 1L;

  protected int[] encoderLayerSizes = {100};
  protected int[] decoderLayerSizes = {100};
  protected ReconstructionDistribution outputDistribution = new GaussianReconstructionDistribution(Activation.TANH);
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

  public int[] getEncoderLayerSizes() {
    return encoderLayerSizes.clone();
  }

  public int[] getDecoderLayerSizes() {
    return decoderLayerSizes.clone();
  }

  public ReconstructionDistribution getOutputDistribution() {
    return outputDistribution;
  }

  public IActivation getPzxActivationFn() {
    return pzxActivationFn != null ? pzxActivationFn : pzxActivation.getActivationFunction();
  }

  public int getNumSamples() {
    return numSamples;
  }

  @Override
  public org.ndrt.nn.conf.layers.Layer ndrtLayer() {
    org.ndrt.nn.conf.layers.VariationalAutoencoder.Builder b = sized(
        new org.ndrt.nn.conf.layers.VariationalAutoencoder.Builder(), true);
    return b.encoderLayerSizes(encoderLayerSizes).decoderLayerSizes(decoderLayerSizes)
        .pzxActivation(Mapping.activation(pzxActivation, pzxActivationFn)).reconstruction(outputDistribution.ndrt())
        .numSamples(numSamples).build();
  }

  /** Deeplearning4j's builder (defaults as Deeplearning4j's: 100 units each side, Gaussian with tanh, IDENTITY heads). */
  public static class Builder extends FeedForwardLayer.Builder<Builder> {
    protected int[] encoderLayerSizes = {100};
    protected int[] decoderLayerSizes = {100};
    protected ReconstructionDistribution outputDistribution = new GaussianReconstructionDistribution(Activation.TANH);
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

    /** A loss in place of a distribution (Deeplearning4j's LossFunctionWrapper): refused at initialisation. */
    public Builder lossFunction(IActivation outputActivationFn, LossFunctions.LossFunction lossFunction) {
      this.outputDistribution = new LossFunctionWrapper(outputActivationFn, (Object) lossFunction);
      return this;
    }

    public Builder lossFunction(Activation outputActivationFn, LossFunctions.LossFunction lossFunction) {
      this.outputDistribution = new LossFunctionWrapper(outputActivationFn, (Object) lossFunction);
      return this;
    }

    public Builder lossFunction(IActivation outputActivationFn, ILossFunction lossFunction) {
      this.outputDistribution = new LossFunctionWrapper(outputActivationFn, lossFunction);
      return this;
    }

    public Builder pzxActivationFunction(Activation a) {
      this.pzxActivation = a;
      this.pzxActivationFn = null;
      return this;
    }

    public Builder pzxActivationFunction(IActivation a) {
      this.pzxActivationFn = a;
      return this;
    }

    public Builder pzxActivationFn(IActivation a) {
      return pzxActivationFunction(a);
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
