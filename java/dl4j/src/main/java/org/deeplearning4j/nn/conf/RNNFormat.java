package org.deeplearning4j.nn.conf;

/** Sequence layout: NCW ([N, size, T], what org.ndrt.nn takes); NWC is refused at initialisation. */
public enum RNNFormat {
  NCW, NWC
}
