package org.deeplearning4j.spark.api;

/**
 * Deeplearning4j's choice between exporting the RDD to files before training (Export) and training on
 * it directly (Direct). ndrt trains directly on the RDD, cached for the fit, with either value: it
 * reads each partition in place every round, so it writes no export files.
 */
public enum RDDTrainingApproach {
  Export, Direct
}
