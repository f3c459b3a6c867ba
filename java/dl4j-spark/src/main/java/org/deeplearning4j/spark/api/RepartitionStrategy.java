package org.deeplearning4j.spark.api;

/**
 * How a training master repartitions: Spark's own {@code repartition} (SparkDefault), or the records
 * dealt round-robin into one partition per worker (Balanced; ApproximateBalanced is the same in ndrt).
 */
public enum RepartitionStrategy {
  SparkDefault, Balanced, ApproximateBalanced
}
