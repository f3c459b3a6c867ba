package org.nd4j.evaluation;

/** Macro (mean over classes) or micro (over all examples) averaging, as ND4J's. */
public enum EvaluationAveraging {
  Macro,
  Micro
}
