package org.ndrt.nn.conf;

import java.util.List;
import org.ndrt.DType;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.updater.Updater;

/**
 * What the training machinery needs of a network's configuration, whatever its shape: a stack
 * ({@link MultiLayerConfiguration}) or a graph ({@link ComputationGraphConfiguration}). The
 * parameters, updater, regularisation and gradient normalisation are one implementation over this.
 */
public interface NetworkConfiguration {
  long seed();

  Updater updater();

  /** The network's L2 on weights (per-layer settings override it). */
  double l2();

  /** The network's weight decay on weights (per-layer settings override it). */
  double weightDecay();

  /** The compute dtype (F32, or F16/BF16 for mixed precision). */
  DType dataType();

  /** Mixed precision: the initial loss scale. */
  double lossScale();

  /** Deeplearning4j's miniBatch: true, the score and gradients are the minibatch mean; false, its sum. */
  boolean miniBatch();

  /** The layers with parameters in the order of the flat vectors (a graph's: topological order). */
  List<Layer> layers();

  String toJson();
}
