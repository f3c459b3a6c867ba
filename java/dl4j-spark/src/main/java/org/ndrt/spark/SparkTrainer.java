package org.ndrt.spark;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.ndrt.nn.Model;

/**
 * Data-parallel training of an org.ndrt network over an RDD: one epoch over the data per {@link #fit}.
 * Two implementations, Deeplearning4j's two training masters: {@link ParameterAveragingTrainer}
 * (through Spark itself) and GradientSharingTrainer (a barrier stage whose tasks share
 * gradients over TCP).
 */
public interface SparkTrainer {
  /**
   * One epoch: the network ends with the trained parameters, updater state and counters, its epoch
   * count one higher.
   */
  <T> void fit(JavaSparkContext sc, Model model, JavaRDD<T> data, RecordConverter<T> converter);

  /** The mean minibatch score of the last round (or step) of the last fit; NaN before any. */
  double lastScore();

  /** Drops the cached copy of the last RDD fitted (kept so the next epoch on the same RDD reuses it). */
  void release();
}
