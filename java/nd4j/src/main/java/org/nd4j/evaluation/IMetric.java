package org.nd4j.evaluation;

/** A metric an evaluation reports (for early stopping and the like), as ND4J's IMetric. */
@SuppressWarnings("rawtypes") // ND4J's signature
public interface IMetric {
  Class<? extends IEvaluation> getEvaluationClass();

  boolean minimize();
}
