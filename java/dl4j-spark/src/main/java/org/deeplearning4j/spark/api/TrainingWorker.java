package org.deeplearning4j.spark.api;

/**
 * Deeplearning4j's type of a Spark worker, kept for TrainingMaster's type parameters. ndrt's workers are
 * org.ndrt.spark's tasks; {@code getWorkerInstance} is not offered.
 */
public interface TrainingWorker<R extends TrainingResult> {}
