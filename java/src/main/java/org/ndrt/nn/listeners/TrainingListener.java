package org.ndrt.nn.listeners;

import org.ndrt.Tensor;
import org.ndrt.nn.Model;

/**
 * Called by {@link org.ndrt.nn.MultiLayerNetwork#fit}, {@link org.ndrt.nn.ComputationGraph#fit} (and by ParallelWrapper) on the training thread. Every
 * method has an empty default, so a listener overrides only what it needs.
 */
public interface TrainingListener {
  /**
   * An epoch starts. {@code iterationsInEpoch} is the number of minibatches it will have, or -1 if
   * the iterator cannot tell; {@code batchSize} the examples per minibatch.
   */
  default void onEpochStart(Model model, int epoch, long iterationsInEpoch, int batchSize) {}

  /**
   * One minibatch was fitted. {@code iteration} counts minibatches since the network was created
   * (ParallelWrapper's numbers: see its class comment); {@code score} is that minibatch's loss (with
   * the L2 term); {@code examples} its size.
   */
  default void iterationDone(Model model, long iteration, int epoch, double score, int examples) {}

  /**
   * Asked before each minibatch that MultiLayerNetwork or ComputationGraph fits: true and the
   * training forward pass gives this listener every layer's output ({@link #onForwardPass}).
   */
  default boolean wantsActivations(Model model) {
    return false;
  }

  /**
   * Layer {@code layer}'s output (an index into configuration().layers()) in a training forward pass
   * this listener asked for; the tensor is the network's and valid only during the call.
   */
  default void onForwardPass(Model model, int layer, Tensor activation) {}

  /** An epoch ended ({@code epoch} is the one that ended, counted from 0). */
  default void onEpochEnd(Model model, int epoch) {}
}
