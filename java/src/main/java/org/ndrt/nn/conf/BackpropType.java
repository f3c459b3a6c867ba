package org.ndrt.nn.conf;

/**
 * How a network backpropagates through sequences (Deeplearning4j's names): {@code Standard}, over
 * the whole sequence; {@code TruncatedBPTT}, in segments of {@code tBPTTForwardLength} steps, each
 * segment one update, the recurrent state carried forward from one segment to the next but no
 * gradient flowing back across the boundary.
 */
public enum BackpropType {
  Standard,
  TruncatedBPTT
}
