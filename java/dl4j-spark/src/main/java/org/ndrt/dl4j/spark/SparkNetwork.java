package org.ndrt.dl4j.spark;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.deeplearning4j.spark.api.TrainingMaster;
import org.deeplearning4j.spark.impl.SparkListenable;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.evaluation.regression.RegressionEvaluation;
import org.nd4j.linalg.dataset.DataSet;

/**
 * What SparkDl4jMultiLayer and SparkComputationGraph share: the Spark context, the driver's network
 * ({@code N}) and its training master, the score of the last fit, and evaluation and scoring of RDDs of
 * DataSets on the executors (SparkEvaluation over the network's org.ndrt.nn model).
 */
public abstract class SparkNetwork<N> extends SparkListenable {
  public static final int DEFAULT_EVAL_SCORE_BATCH_SIZE = 64;
  public static final int DEFAULT_EVAL_WORKERS = 4;
  protected final JavaSparkContext sc;
  protected N network;
  private double lastScore = Double.NaN;
  private int defaultEvaluationWorkers = DEFAULT_EVAL_WORKERS;

  protected SparkNetwork(JavaSparkContext sc, N network, TrainingMaster<?, ?> trainingMaster) {
    if (sc == null || network == null || trainingMaster == null) {
      throw new IllegalArgumentException(getClass().getSimpleName() + ": the Spark context, network and training "
          + "master must not be null");
    }
    this.sc = sc;
    this.trainingMaster = trainingMaster;
    init(network);  // nothing if it already is
    this.network = network;
  }

  /** Initialises the network (nothing when it already is). */
  protected abstract void init(N network);

  /** The org.ndrt.nn model the network adapts. */
  protected abstract org.ndrt.nn.Model ndrtModel();

  /** One epoch over the RDD with the training master; returns the trained network. */
  public abstract N fit(JavaRDD<DataSet> trainingData);

  public N fit(RDD<DataSet> trainingData) {
    return fit(trainingData.toJavaRDD());
  }

  public JavaSparkContext getSparkContext() {
    return sc;
  }

  public N getNetwork() {
    return network;
  }

  public void setNetwork(N network) {
    if (network == null) {
      throw new IllegalArgumentException("setNetwork: null");
    }
    init(network);
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

  /** The mean minibatch score of the last averaging round (or step) of the last fit. */
  public double getScore() {
    return lastScore;
  }

  public void setScore(double score) {
    this.lastScore = score;
  }

  /** The score over the whole RDD: the examples' mean ({@code average}) or sum, in minibatches of 64. */
  public double calculateScore(JavaRDD<DataSet> data, boolean average) {
    return calculateScore(data, average, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  public double calculateScore(JavaRDD<DataSet> data, boolean average, int minibatchSize) {
    return SparkEvaluation.score(sc, ndrtModel(), data, Records.DATA_SET, average, minibatchSize);
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
    return SparkEvaluation.evaluate(sc, ndrtModel(), data, Records.DATA_SET, evalBatchSize, emptyEvaluations);
  }

  @SafeVarargs
  @SuppressWarnings({"rawtypes", "varargs"})
  public final <T extends IEvaluation> T[] doEvaluation(JavaRDD<DataSet> data, int evalNumWorkers, int evalBatchSize,
      T... emptyEvaluations) {
    return doEvaluation(data, evalBatchSize, emptyEvaluations);
  }
}
