package org.ndrt.nn.api;

/**
 * Deeplearning4j's optimisation algorithms ({@code NeuralNetConfiguration.Builder.optimizationAlgo}).
 * ndrt trains by minibatch stochastic gradient descent with the configured updater, which is
 * {@link #STOCHASTIC_GRADIENT_DESCENT} (Deeplearning4j's default); a configuration naming another
 * algorithm is refused when it is built.
 */
public enum OptimizationAlgorithm {
  /** Minibatch gradient descent with the configured updater: what ndrt does. */
  STOCHASTIC_GRADIENT_DESCENT,
  /** Line search along the gradient (not in ndrt). */
  LINE_GRADIENT_DESCENT,
  /** Conjugate gradient (not in ndrt). */
  CONJUGATE_GRADIENT,
  /** L-BFGS (not in ndrt). */
  LBFGS
}
