package org.deeplearning4j.nn.api;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;

/**
 * One layer of a network (minimal): its configuration and index. The layer's computation is
 * org.ndrt.nn's; per-layer forward/backward calls (activate, backpropGradient) are not offered.
 */
public interface Layer {
  /** Deeplearning4j's layer kinds. */
  enum Type { FEED_FORWARD, RECURRENT, CONVOLUTIONAL, CONVOLUTIONAL3D, SUBSAMPLING, UPSAMPLING, RECURSIVE, MULTILAYER, NORMALIZATION }

  NeuralNetConfiguration conf();

  int getIndex();

  Type type();

  /** The layer's parameter count (the network must be initialised). */
  long numParams();
}
