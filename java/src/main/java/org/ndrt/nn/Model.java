package org.ndrt.nn;

import org.ndrt.Tensor;

/**
 * What listeners and trainers see of a trainable network, whatever its shape:
 * {@link MultiLayerNetwork} or {@link ComputationGraph} (Deeplearning4j's {@code Model}).
 */
public interface Model extends AutoCloseable {
  /** The score of the last minibatch fitted (loss plus regularisation). */
  double score();

  /** Epochs trained. */
  int getEpochCount();

  /** Minibatches fitted. */
  long getIterationCount();

  /** The number of parameters (the length of {@link #params()}). */
  long numParams();

  /** The flat f32 parameter vector the layers view: do not close. */
  Tensor params();

  /** The flat f32 updater state (momentum etc.; empty for SGD): do not close. */
  Tensor updaterState();

  /** The configuration as JSON. */
  String configurationJson();

  @Override
  void close();
}
