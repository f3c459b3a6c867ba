package org.deeplearning4j.nn.conf;

/** Standard or truncated backpropagation through time (org.ndrt.nn.conf.BackpropType). */
public enum BackpropType {
  Standard, TruncatedBPTT
}
