package org.deeplearning4j.spark.api;

/** When a training master repartitions the training RDD before fitting (Deeplearning4j's). */
public enum Repartition {
  Never, Always, NumPartitionsWorkersDiffers
}
