package org.deeplearning4j.spark.impl.multilayer;

import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.spark.api.TrainingMaster;
import org.deeplearning4j.spark.impl.SparkListenable;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.evaluation.regression.RegressionEvaluation;
import org.nd4j.linalg.dataset.DataSet;
import org.ndrt.dl4j.spark.Records;
import org.ndrt.dl4j.spark.SparkEvaluation;

/**
 * Deeplearning4j's MultiLayerNetwork on Spark: {@code fit} trains the driver's network over an RDD of
 * DataSets with the training master (one epoch per call), {@code evaluate} and {@code calculateScore} run on
 * the executors with replicas of it. The network is the drop-in's MultiLayerNetwork, whose org.ndrt.nn network
 * org.ndrt.spark trains.
 */
public class SparkDl4jMultiLayer extends SparkListenable {
  public static final int DEFAULT_EVAL_SCORE_BATCH_SIZE = 64;
  public static final int DEFAULT_EVAL_WORKERS = 4;
  private final JavaSparkContext sc;
  private MultiLayerNetwork network;
  private double lastScore = Double.NaN;
  private int defaultEvaluationWorkers = DEFAULT_EVAL_WORKERS;

  public SparkDl4jMultiLayer(SparkContext sc, MultiLayerNetwork network, TrainingMaster<?, ?> trainingMaster) {
    this(new JavaSparkContext(sc), network, trainingMaster);
  }

  public SparkDl4jMultiLayer(SparkContext sc, MultiLayerConfiguration conf, TrainingMaster<?, ?> trainingMaster) {
    this(new JavaSparkContext(sc), conf, trainingMaster);
  }

  public SparkDl4jMultiLayer(JavaSparkContext sc, MultiLayerConfiguration conf, TrainingMaster<?, ?> trainingMaster) {
    this(sc, initialised(conf), trainingMaster);
  }

  public SparkDl4jMultiLayer(JavaSparkContext sc, MultiLayerNetwork network, TrainingMaster<?, ?> trainingMaster) {
    if (sc == null || network == null || trainingMaster == null) {
      throw new IllegalArgumentException("SparkDl4jMultiLayer: the Spark context, network and training master must "
          + "not be null");
    }
    this.sc = sc;
    this.network = network;
    this.trainingMaster = trainingMaster;
    network.init();  // nothing if it already is
  }

  private static MultiLayerNetwork initialised(MultiLayerConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("SparkDl4jMultiLayer: the configuration is null");
    }
    MultiLayerNetwork n = new MultiLayerNetwork(conf);
    n.init();
    return n;
  }

  public JavaSparkContext getSparkContext() {
    return sc;
  }

  public MultiLayerNetwork getNetwork() {
    return network;
  }

  public void setNetwork(MultiLayerNetwork network) {
    if (network == null) {
      throw new IllegalArgumentException("setNetwork: null");
    }
    network.init();
    this.network = network;
  }

  @SuppressWarnings("rawtypes")
  public TrainingMaster getTrainingMaster() {
    return trainingMaster;
  }

  public int getDefaultEvaluationWorkers() {
    return defaultEvaluationWorkers;
  }

  /** Kept for Deeplearning4j's API: ndrt evaluates one replica per task (Spark's parallelism decides). */
  public void setDefaultEvaluationWorkers(int workers) {
    if (workers <= 0) {
      throw new IllegalArgumentException("setDefaultEvaluationWorkers: need >= 1, got " + workers);
    }
    this.defaultEvaluationWorkers = workers;
  }

  public void setCollectTrainingStats(boolean collect) {
    trainingMaster.setCollectTrainingStats(collect);
  }

  // ------------------------------------------------------------------------------ training

  /** One epoch over the RDD with the training master; returns the trained network. */
  public MultiLayerNetwork fit(JavaRDD<DataSet> trainingData) {
    if (trainingData == null) {
      throw new IllegalArgumentException("fit: the RDD is null");
    }
    trainingMaster.executeTraining(this, trainingData);
    return network;
  }

  public MultiLayerNetwork fit(RDD<DataSet> trainingData) {
    return fit(trainingData.toJavaRDD());
  }

  /** Deeplearning4j's fit from exported files is not offered: give the RDD of DataSets. */
  public MultiLayerNetwork fit(String path) {
    throw new UnsupportedOperationException("SparkDl4jMultiLayer.fit(String path): ndrt trains on an RDD of DataSets "
        + "(fit(JavaRDD<DataSet>)), not on exported files");
  }

  /** The mean minibatch score of the last averaging round of the last fit. */
  public double getScore() {
    return lastScore;
  }

  public void setScore(double score) {
    this.lastScore = score;
  }

  // ------------------------------------------------------------------------------ scoring, evaluation

  /** The score over the whole RDD: the examples' mean ({@code average}) or sum, in minibatches of 64. */
  public double calculateScore(JavaRDD<DataSet> data, boolean average) {
    return calculateScore(data, average, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  public double calculateScore(RDD<DataSet> data, boolean average) {
    return calculateScore(data.toJavaRDD(), average);
  }

  public double calculateScore(JavaRDD<DataSet> data, boolean average, int minibatchSize) {
    return SparkEvaluation.score(sc, network.ndrtNetwork(), data, Records.DATA_SET, average, minibatchSize);
  }

  /**
   * Classification evaluation on the executors. The result is also Deeplearning4j's older
   * {@code org.deeplearning4j.eval.Evaluation}, which programs of its time assign it to.
   */
  @SuppressWarnings({"unchecked", "deprecation"})
  public <T extends Evaluation> T evaluate(JavaRDD<DataSet> data) {
    return (T) doEvaluation(data, DEFAULT_EVAL_SCORE_BATCH_SIZE, new org.deeplearning4j.eval.Evaluation())[0];
  }

  public <T extends Evaluation> T evaluate(RDD<DataSet> data) {
    return evaluate(data.toJavaRDD());
  }

  @SuppressWarnings("unchecked")
  public <T extends Evaluation> T evaluate(JavaRDD<DataSet> data, List<String> labelsList) {
    return evaluate(data, labelsList, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  public <T extends Evaluation> T evaluate(RDD<DataSet> data, List<String> labelsList) {
    return evaluate(data.toJavaRDD(), labelsList);
  }

  @SuppressWarnings({"unchecked", "deprecation"})
  public <T extends Evaluation> T evaluate(JavaRDD<DataSet> data, List<String> labelsList, int evalBatchSize) {
    return (T) doEvaluation(data, evalBatchSize, new org.deeplearning4j.eval.Evaluation(labelsList))[0];
  }

  @SuppressWarnings("unchecked")
  public <T extends RegressionEvaluation> T evaluateRegression(JavaRDD<DataSet> data) {
    return evaluateRegression(data, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  @SuppressWarnings("unchecked")
  public <T extends RegressionEvaluation> T evaluateRegression(JavaRDD<DataSet> data, int minibatchSize) {
    return (T) doEvaluation(data, minibatchSize, new RegressionEvaluation())[0];
  }

  @SuppressWarnings("rawtypes")
  public <T extends IEvaluation> T doEvaluation(JavaRDD<DataSet> data, T emptyEvaluation, int evalBatchSize) {
    return doEvaluation(data, evalBatchSize, emptyEvaluation)[0];
  }

  /** Each evaluation over the RDD, computed per partition on the executors and merged. */
  @SafeVarargs
  @SuppressWarnings({"rawtypes", "varargs"})
  public final <T extends IEvaluation> T[] doEvaluation(JavaRDD<DataSet> data, int evalBatchSize, T... emptyEvaluations) {
    if (data == null) {
      throw new IllegalArgumentException("doEvaluation: the RDD is null");
    }
    return SparkEvaluation.evaluate(sc, network.ndrtNetwork(), data, Records.DATA_SET, evalBatchSize, emptyEvaluations);
  }

  @SafeVarargs
  @SuppressWarnings({"rawtypes", "varargs"})
  public final <T extends IEvaluation> T[] doEvaluation(JavaRDD<DataSet> data, int evalNumWorkers, int evalBatchSize,
      T... emptyEvaluations) {
    return doEvaluation(data, evalBatchSize, emptyEvaluations);
  }
}
