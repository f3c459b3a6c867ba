package org.deeplearning4j.nn.api;

/** Deeplearning4j's optimisation algorithms: ndrt trains by STOCHASTIC_GRADIENT_DESCENT with the updater; the others are refused at initialisation. */
public enum OptimizationAlgorithm {
  LINE_GRADIENT_DESCENT, CONJUGATE_GRADIENT, LBFGS, STOCHASTIC_GRADIENT_DESCENT
}
