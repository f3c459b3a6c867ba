package org.ndrt.nn.conf;

/** Output-layer losses (Deeplearning4j's names), each the mean over the minibatch. */
public enum LossFunction {
  /** Negative log likelihood of a softmax output (with one-hot labels): fused softmax + cross-entropy. */
  NEGATIVELOGLIKELIHOOD,
  /** Multi-class cross-entropy; with a softmax output the same as NEGATIVELOGLIKELIHOOD. */
  MCXENT,
  /** Mean squared error, mean over all elements. */
  MSE,
  /** Mean absolute error, mean over all elements. */
  L1,
  /** Binary cross-entropy of a sigmoid output (fused with the sigmoid: bce_with_logits). */
  XENT
}
