package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;

/** Creates the compute side of each configured layer, and gives the network the output layer's calls. */
public final class Layers {
  private Layers() {}

  /** The implementation of layer {@code i} of {@code conf}, computing in {@code dtype}. */
  public static LayerImpl create(MultiLayerConfiguration conf, int i, DType dtype) {
    Layer l = conf.layers().get(i);
    if (l instanceof ConvolutionLayer) {
      return new ConvolutionImpl((ConvolutionLayer) l, l.inferOutput(conf.layerInput(i)), dtype);
    } else if (l instanceof SubsamplingLayer) {
      return new SubsamplingImpl((SubsamplingLayer) l, l.inferOutput(conf.layerInput(i)), dtype);
    } else if (l instanceof OutputLayer) {
      return new OutputImpl((OutputLayer) l, dtype);
    } else if (l instanceof DenseLayer) {
      return new DenseImpl((DenseLayer) l, dtype);
    } else if (l instanceof BatchNormalization) {
      return new BatchNormImpl((BatchNormalization) l, dtype);
    } else if (l instanceof DropoutLayer) {
      return new DropoutImpl((DropoutLayer) l, conf.seed() + 1 + i, dtype);
    }
    throw new IllegalArgumentException("no implementation for layer type " + l.getClass().getName());
  }

  /** The output layer's mean loss for {@code labels} after a forward pass (rank-0 f32, owned by the layer). */
  public static Tensor loss(LayerImpl output, Tensor labels) {
    return ((OutputImpl) output).loss(labels);
  }

  /** Backward from the loss; {@code scale} is dL (rank 0, f32): 1, or the loss scale. */
  public static Tensor backwardFromLoss(LayerImpl output, Tensor labels, Tensor scale, boolean needDx) {
    return ((OutputImpl) output).backwardFromLoss(labels, scale, needDx);
  }

  /** The activated output after a forward pass, as a new f32 tensor. */
  public static Tensor activate(LayerImpl output) {
    return ((OutputImpl) output).activate();
  }
}
