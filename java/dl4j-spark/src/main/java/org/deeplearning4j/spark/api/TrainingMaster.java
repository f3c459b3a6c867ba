package org.deeplearning4j.spark.api;

import java.util.Collection;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.deeplearning4j.spark.impl.graph.SparkComputationGraph;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;

/**
 * How a Spark network trains (Deeplearning4j's): ParameterAveragingTrainingMaster or
 * SharedTrainingMaster, each over an org.ndrt.spark trainer ({@link #ndrtTrainer()}).
 */
public interface TrainingMaster<R extends TrainingResult, W extends TrainingWorker<R>> {
  void executeTraining(SparkDl4jMultiLayer network, JavaRDD<DataSet> trainingData);

  void executeTraining(SparkComputationGraph graph, JavaRDD<DataSet> trainingData);

  void executeTrainingMDS(SparkComputationGraph graph, JavaRDD<MultiDataSet> trainingData);

  /** Listeners of the driver's network during fit: called once per averaging round (or step) with its mean score. */
  void setListeners(Collection<TrainingListener> listeners);

  /** Deeplearning4j's per-phase timing statistics are not collected by ndrt: true is refused. */
  void setCollectTrainingStats(boolean collectTrainingStats);

  boolean getIsCollectTrainingStats();

  /** ndrt writes no temporary files; this drops the cached copy of the last RDD fitted. True. */
  boolean deleteTempFiles(JavaSparkContext sc);

  boolean deleteTempFiles(SparkContext sc);

  /** Deeplearning4j's JSON form of a training master is not written by ndrt. */
  String toJson();

  /** ndrt: the org.ndrt.spark trainer this master configures. */
  org.ndrt.spark.SparkTrainer ndrtTrainer();
}
