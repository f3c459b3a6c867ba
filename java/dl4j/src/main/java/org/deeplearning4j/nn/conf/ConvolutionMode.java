package org.deeplearning4j.nn.conf;

/** Deeplearning4j's convolution modes: Truncate and Same map onto org.ndrt.nn's ConvMode; Strict and Causal are refused at initialisation. */
public enum ConvolutionMode {
  Strict, Truncate, Same, Causal
}
