package org.deeplearning4j.spark.api;

/**
 * Deeplearning4j's type of what a Spark worker returns, kept for TrainingMaster's type parameters. ndrt's
 * workers return org.ndrt.spark's own results; no object of this type is created.
 */
public interface TrainingResult {}
