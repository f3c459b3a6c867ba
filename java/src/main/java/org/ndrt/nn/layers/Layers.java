package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;
import org.ndrt.nn.conf.layers.Bidirectional;
import org.ndrt.nn.conf.layers.GRU;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.LastTimeStep;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;

/** Creates the compute side of each configured layer, and gives the network the output layer's calls. */
public final class Layers {
  private Layers() {}

  /**
   * Plans which of a MultiLayerNetwork's activations stay channels-last ({@link ChannelsLast}, the
   * planner graphs use too, here on a chain).
   */
  public static void planChannelsLast(MultiLayerConfiguration conf, LayerImpl[] layers) {
    int n = layers.length;
    ChannelsLast.Role[] roles = new ChannelsLast.Role[n];
    int[][] inputs = new int[n][];
    boolean[] image = new boolean[n];
    boolean[] isOutput = new boolean[n];
    for (int i = 0; i < n; ++i) {
      roles[i] = layers[i].channelsLastRole();
      inputs[i] = new int[] {i - 1};
      image[i] = i + 1 < n && conf.layerInput(i + 1).isConvolutional();
      isOutput[i] = i == n - 1;
    }
    ChannelsLast.plan(layers, roles, inputs, image, isOutput);
  }

  /**
   * Lets each convolution that has ndrt's direct kernel on this CPU ({@link ConvolutionImpl#canFusePool})
   * and is followed by a 2x2 max pooling at stride 2 run both as one op, conv2d_bias_max_pool2x2:
   * the convolution's output is never stored, and the pooling's backward reads a byte per window
   * instead of that output (LeNet's conv 1: 2.9 MB per batch of 64 written once and read twice less).
   * The results are those of the separate ops on ndrt's direct kernel, bit for bit. Runs after {@link #planChannelsLast} (NCHW layers only).
   * System property {@code org.ndrt.fuseConvPool}: {@code true} (default) or {@code false}.
   * Only on a CPU device (the thread's, which the network's tensors live on): the fused ops are
   * CPU kernels; on a GPU the convolution and the pooling run as cuDNN's and ndrt's separate ops.
   */
  public static void planConvPool(LayerImpl[] layers) {
    if (System.getProperty("org.ndrt.fuseConvPool", "true").equals("false")
        || org.ndrt.Device.current().type() != org.ndrt.Device.Type.CPU
        || !"1".equals(org.ndrt.Ndrt.config("cpu.direct_conv"))) {
      return;
    }
    for (int i = 0; i + 1 < layers.length; ++i) {
      if (layers[i] instanceof ConvolutionImpl && layers[i + 1] instanceof SubsamplingImpl
          && ((ConvolutionImpl) layers[i]).canFusePool() && ((SubsamplingImpl) layers[i + 1]).isMax2x2()) {
        ((ConvolutionImpl) layers[i]).fusePool((SubsamplingImpl) layers[i + 1]);
      }
    }
  }

  /**
   * Lets each convolution whose output only the batch normalisation right after it takes fold that
   * normalisation into its weights in inference passes ({@link ConvolutionImpl#foldBatchNorm}: f32,
   * no activation of the convolution's own, not fused with a pooling), as {@code layers} pairs them:
   * a stack's adjacent layers, or a graph's pair. Outputs equal the unfolded layers' up to float
   * rounding. System property {@code org.ndrt.foldBatchNorm}: {@code true} (default) or {@code false}.
   */
  public static void planBatchNormFold(LayerImpl[] layers) {
    if (System.getProperty("org.ndrt.foldBatchNorm", "true").equals("false")) {
      return;
    }
    for (int i = 0; i + 1 < layers.length; ++i) {
      if (layers[i] instanceof ConvolutionImpl && layers[i + 1] instanceof BatchNormImpl) {
        ((ConvolutionImpl) layers[i]).foldBatchNorm((BatchNormImpl) layers[i + 1]);
      }
    }
  }

  /** The implementation of layer {@code i} of {@code conf}, computing in {@code dtype}. */
  public static LayerImpl create(MultiLayerConfiguration conf, int i, DType dtype) {
    return create(conf.layers().get(i), conf.layerInput(i), conf.seed(), i, conf.miniBatch(), dtype);
  }

  /**
   * The implementation of layer {@code l} taking {@code in}, computing in {@code dtype}; {@code index}
   * is its place among the network's layers (its random stream's seed is {@code seed + 1 + index}).
   */
  public static LayerImpl create(Layer l, InputType in, long seed, int index, boolean miniBatch, DType dtype) {
    if (l instanceof ConvolutionLayer) {
      return new ConvolutionImpl((ConvolutionLayer) l, l.inferOutput(in), dtype);
    } else if (l instanceof SubsamplingLayer) {
      return new SubsamplingImpl((SubsamplingLayer) l, l.inferOutput(in), dtype);
    } else if (l instanceof org.ndrt.nn.conf.layers.Convolution1DLayer) {
      return new Convolution1DImpl((org.ndrt.nn.conf.layers.Convolution1DLayer) l, dtype);
    } else if (l instanceof org.ndrt.nn.conf.layers.GlobalPoolingLayer) {
      return new GlobalPoolingImpl((org.ndrt.nn.conf.layers.GlobalPoolingLayer) l, dtype);
    } else if (l instanceof RnnOutputLayer) {
      return new RnnOutputImpl((RnnOutputLayer) l, dtype);
    } else if (l instanceof org.ndrt.nn.conf.layers.CenterLossOutputLayer) {
      return new CenterLossImpl((org.ndrt.nn.conf.layers.CenterLossOutputLayer) l, miniBatch, dtype);
    } else if (l instanceof OutputLayer) {
      return new OutputImpl((OutputLayer) l, dtype);
    } else if (l instanceof LSTM || l instanceof GRU || l instanceof Bidirectional || l instanceof LastTimeStep) {
      return recurrent(l, false, dtype);
    } else if (l instanceof EmbeddingSequenceLayer) {
      return new EmbeddingSequenceImpl((EmbeddingSequenceLayer) l, dtype);
    } else if (l instanceof DenseLayer) {
      return new DenseImpl((DenseLayer) l, dtype);
    } else if (l instanceof BatchNormalization) {
      return new BatchNormImpl((BatchNormalization) l, dtype);
    } else if (l instanceof DropoutLayer) {
      return new DropoutImpl((DropoutLayer) l, seed + 1 + index, dtype);
    } else if (l instanceof org.ndrt.nn.conf.layers.ActivationLayer) {
      return new ActivationImpl((org.ndrt.nn.conf.layers.ActivationLayer) l, dtype);
    } else if (l instanceof org.ndrt.nn.conf.layers.VariationalAutoencoder) {
      return new VaeImpl((org.ndrt.nn.conf.layers.VariationalAutoencoder) l, seed + 1 + index, dtype);
    }
    throw new IllegalArgumentException("no implementation for layer type " + l.getClass().getName());
  }

  /**
   * Each sequence's last valid step of {@code inner}'s output ([N, T, F] to [N, F], under the
   * lengths given by setSequenceLengths): a LastTimeStep layer, or with {@link #identity} a graph's
   * LastTimeStepVertex.
   */
  public static LayerImpl lastTimeStep(LayerImpl inner, DType dtype) {
    return new LastTimeStepImpl(inner, dtype);
  }

  /** A layer that passes its input and gradient through unchanged (no parameters). */
  public static LayerImpl identity(DType dtype) {
    return new LayerImpl(dtype) {
      @Override
      public Tensor forward(Tensor x, boolean training) {
        return x;
      }

      @Override
      public Tensor backward(Tensor dy, boolean needDx) {
        return dy;
      }
    };
  }

  private static LayerImpl recurrent(Layer l, boolean reverse, DType dtype) {
    if (l instanceof LSTM) {
      return new LstmImpl((LSTM) l, reverse, dtype);
    } else if (l instanceof GRU) {
      return new GruImpl((GRU) l, reverse, dtype);
    } else if (l instanceof Bidirectional) {
      Bidirectional b = (Bidirectional) l;
      return new BidirectionalImpl(b, recurrent(b.getFwd(), false, dtype), recurrent(b.getFwd(), true, dtype), dtype);
    } else if (l instanceof LastTimeStep) {
      return new LastTimeStepImpl(recurrent(((LastTimeStep) l).getUnderlying(), false, dtype), dtype);
    }
    throw new IllegalArgumentException("no recurrent implementation for layer type " + l.getClass().getName());
  }

  /**
   * The output layer's loss for {@code labels} after a forward pass (rank 0, owned by the layer): f32
   * (f64 for an RnnOutputLayer computing in f64). OutputLayer: the mean over the minibatch;
   * RnnOutputLayer: the sum over the valid steps / N.
   */
  public static Tensor loss(LayerImpl output, Tensor labels) {
    if (output instanceof RnnOutputImpl) {
      return ((RnnOutputImpl) output).loss(labels);
    }
    return ((OutputImpl) output).loss(labels);
  }

  /** Backward from the loss; {@code scale} is dL (rank 0, f32): 1, or the loss scale. */
  public static Tensor backwardFromLoss(LayerImpl output, Tensor labels, Tensor scale, boolean needDx) {
    if (output instanceof RnnOutputImpl) {
      return ((RnnOutputImpl) output).backwardFromLoss(scale, needDx);
    }
    return ((OutputImpl) output).backwardFromLoss(labels, scale, needDx);
  }

  /**
   * The activated output after a forward pass, as a new f32 tensor: [N, nOut], or [N, nOut, T] for an
   * RnnOutputLayer (0 at masked steps); a VariationalAutoencoder's mean of q(z|x).
   */
  public static Tensor activate(LayerImpl output) {
    if (output instanceof RnnOutputImpl) {
      return ((RnnOutputImpl) output).activate();
    } else if (output instanceof VaeImpl) {
      return ((VaeImpl) output).activate();  // a network that ends in a VAE: the mean of q(z|x)
    }
    return ((OutputImpl) output).activate();
  }

  /**
   * Deeplearning4j's feedForwardToLayer after the input stage: runs {@code x} through layers 0 to
   * {@code to} and gives each one's activations as new f32 tensors the caller closes (see {@link
   * LayerImpl#activation}); the output layer's are its activated output, as {@link #activate}.
   */
  public static java.util.List<Tensor> activations(LayerImpl[] layers, Tensor x, int to, boolean training) {
    java.util.List<Tensor> out = new java.util.ArrayList<>();
    try {
      Tensor a = x;
      for (int i = 0; i <= to; ++i) {
        a = layers[i].forward(a, training);
        out.add(i == layers.length - 1 ? activate(layers[i]) : layers[i].activation(a));
      }
      return out;
    } catch (RuntimeException e) {
      out.forEach(Tensor::close);
      throw e;
    }
  }

  /** True when the output layer gives one output per time step (RnnOutputLayer). */
  public static boolean isSequenceOutput(LayerImpl output) {
    return output instanceof RnnOutputImpl;
  }

  /**
   * RnnOutputLayer: the step weights of the next loss and output ([N, T], 1 = valid; the labels mask,
   * else the features mask), or null when every step counts.
   */
  public static void setOutputMask(LayerImpl output, Tensor mask) {
    if (output instanceof RnnOutputImpl) {
      ((RnnOutputImpl) output).setMask(mask);
    } else if (mask != null) {
      throw new IllegalArgumentException("a labels mask needs an RnnOutputLayer (one label per time step); an OutputLayer"
          + " has one label per example");
    }
  }

  /** RnnOutputLayer: the pre-activation rows [N T, nOut] (row b T + t) of the last forward pass. */
  public static Tensor sequenceLogits(LayerImpl output) {
    return ((RnnOutputImpl) output).logits();
  }
}
