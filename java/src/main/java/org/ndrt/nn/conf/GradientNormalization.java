package org.ndrt.nn.conf;

/**
 * Gradient normalisation per layer, as Deeplearning4j's: applied to a layer's raw gradients (before
 * regularisation and the updater), on each step. "Per layer" takes all the layer's trained parameters
 * together, "per param type" each parameter array (W, b, ...) alone.
 */
public enum GradientNormalization {
  /** Gradients as computed. */
  None,
  /** g / ||g||2 over the layer (1e-5 instead of a zero norm). */
  RenormalizeL2PerLayer,
  /** g / ||g||2 per parameter array (1e-5 instead of a zero norm). */
  RenormalizeL2PerParamType,
  /** Each element clipped to [-threshold, threshold]. */
  ClipElementWiseAbsoluteValue,
  /** g * threshold / ||g||2 over the layer when that norm exceeds the threshold. */
  ClipL2PerLayer,
  /** g * threshold / ||g||2 per parameter array when its norm exceeds the threshold. */
  ClipL2PerParamType
}
