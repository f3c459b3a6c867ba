package org.deeplearning4j.nn.conf;

/** Deeplearning4j's gradient normalization kinds. ndrt trains with None only; the others are refused when the network is initialised (org.ndrt.nn has no gradient clipping yet). */
public enum GradientNormalization {
  None, RenormalizeL2PerLayer, RenormalizeL2PerParamType, ClipElementWiseAbsoluteValue, ClipL2PerLayer, ClipL2PerParamType
}
