package org.deeplearning4j.spark.impl.graph;

import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.spark.api.TrainingMaster;
import org.deeplearning4j.spark.impl.SparkListenable;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.evaluation.regression.RegressionEvaluation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.ndrt.dl4j.spark.Records;
import org.ndrt.dl4j.spark.SparkEvaluation;

/**
 * Deeplearning4j's ComputationGraph on Spark: {@code fit} (RDDs of DataSets, one input and one output) and
 * {@code fitMultiDataSet} train the driver's graph with the training master, one epoch per call;
 * evaluation and scoring run on the executors with replicas (a graph's first output against its first
 * labels).
 */
public class SparkComputationGraph extends SparkListenable {
  public static final int DEFAULT_EVAL_SCORE_BATCH_SIZE = 64;
  public static final int DEFAULT_EVAL_WORKERS = 4;
  private final JavaSparkContext sc;
  private ComputationGraph network;
  private double lastScore = Double.NaN;
  private int defaultEvaluationWorkers = DEFAULT_EVAL_WORKERS;

  @SuppressWarnings("rawtypes")
  public SparkComputationGraph(SparkContext sc, ComputationGraph network, TrainingMaster trainingMaster) {
    this(new JavaSparkContext(sc), network, trainingMaster);
  }

  @SuppressWarnings("rawtypes")
  public SparkComputationGraph(SparkContext sc, ComputationGraphConfiguration conf, TrainingMaster trainingMaster) {
    this(new JavaSparkContext(sc), conf, trainingMaster);
  }

  @SuppressWarnings("rawtypes")
  public SparkComputationGraph(JavaSparkContext sc, ComputationGraphConfiguration conf, TrainingMaster trainingMaster) {
    this(sc, initialised(conf), trainingMaster);
  }

  @SuppressWarnings("rawtypes")
  public SparkComputationGraph(JavaSparkContext sc, ComputationGraph network, TrainingMaster trainingMaster) {
    if (sc == null || network == null || trainingMaster == null) {
      throw new IllegalArgumentException("SparkComputationGraph: the Spark context, graph and training master must "
          + "not be null");
    }
    this.sc = sc;
    this.network = network;
    this.trainingMaster = trainingMaster;
    network.init();
  }

  private static ComputationGraph initialised(ComputationGraphConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("SparkComputationGraph: the configuration is null");
    }
    ComputationGraph g = new ComputationGraph(conf);
    g.init();
    return g;
  }

  public JavaSparkContext getSparkContext() {
    return sc;
  }

  public ComputationGraph getNetwork() {
    return network;
  }

  public void setNetwork(ComputationGraph network) {
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

  public ComputationGraph fit(JavaRDD<DataSet> trainingData) {
    if (trainingData == null) {
      throw new IllegalArgumentException("fit: the RDD is null");
    }
    trainingMaster.executeTraining(this, trainingData);
    return network;
  }

  public ComputationGraph fit(RDD<DataSet> trainingData) {
    return fit(trainingData.toJavaRDD());
  }

  public ComputationGraph fitMultiDataSet(JavaRDD<MultiDataSet> trainingData) {
    if (trainingData == null) {
      throw new IllegalArgumentException("fitMultiDataSet: the RDD is null");
    }
    trainingMaster.executeTrainingMDS(this, trainingData);
    return network;
  }

  public ComputationGraph fitMultiDataSet(RDD<MultiDataSet> trainingData) {
    return fitMultiDataSet(trainingData.toJavaRDD());
  }

  public double getScore() {
    return lastScore;
  }

  public void setScore(double score) {
    this.lastScore = score;
  }

  // ------------------------------------------------------------------------------ scoring, evaluation

  public double calculateScore(JavaRDD<DataSet> data, boolean average) {
    return calculateScore(data, average, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  public double calculateScore(JavaRDD<DataSet> data, boolean average, int minibatchSize) {
    return SparkEvaluation.score(sc, network.ndrtGraph(), data, Records.DATA_SET, average, minibatchSize);
  }

  public double calculateScoreMultiDataSet(JavaRDD<MultiDataSet> data, boolean average) {
    return calculateScoreMultiDataSet(data, average, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  public double calculateScoreMultiDataSet(JavaRDD<MultiDataSet> data, boolean average, int minibatchSize) {
    return SparkEvaluation.score(sc, network.ndrtGraph(), data, Records.MULTI_DATA_SET, average, minibatchSize);
  }

  @SuppressWarnings({"unchecked", "deprecation"})
  public <T extends Evaluation> T evaluate(JavaRDD<DataSet> data) {
    return (T) doEvaluation(data, DEFAULT_EVAL_SCORE_BATCH_SIZE, new org.deeplearning4j.eval.Evaluation())[0];
  }

  public <T extends Evaluation> T evaluate(RDD<DataSet> data) {
    return evaluate(data.toJavaRDD());
  }

  @SuppressWarnings("unchecked")
  public <T extends RegressionEvaluation> T evaluateRegression(JavaRDD<DataSet> data) {
    return evaluateRegression(data, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  @SuppressWarnings("unchecked")
  public <T extends RegressionEvaluation> T evaluateRegression(JavaRDD<DataSet> data, int minibatchSize) {
    return (T) doEvaluation(data, minibatchSize, new RegressionEvaluation())[0];
  }

  public <T extends Evaluation> T evaluateMDS(JavaRDD<MultiDataSet> data) {
    return evaluateMDS(data, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  @SuppressWarnings({"unchecked", "deprecation"})
  public <T extends Evaluation> T evaluateMDS(JavaRDD<MultiDataSet> data, int minibatchSize) {
    return (T) doEvaluationMDS(data, minibatchSize, new org.deeplearning4j.eval.Evaluation())[0];
  }

  @SuppressWarnings("rawtypes")
  public <T extends IEvaluation> T doEvaluation(JavaRDD<DataSet> data, T emptyEvaluation, int evalBatchSize) {
    return doEvaluation(data, evalBatchSize, emptyEvaluation)[0];
  }

  @SafeVarargs
  @SuppressWarnings({"rawtypes", "varargs"})
  public final <T extends IEvaluation> T[] doEvaluation(JavaRDD<DataSet> data, int evalBatchSize, T... emptyEvaluations) {
    if (data == null) {
      throw new IllegalArgumentException("doEvaluation: the RDD is null");
    }
    return SparkEvaluation.evaluate(sc, network.ndrtGraph(), data, Records.DATA_SET, evalBatchSize, emptyEvaluations);
  }

  @SafeVarargs
  @SuppressWarnings({"rawtypes", "varargs"})
  public final <T extends IEvaluation> T[] doEvaluationMDS(JavaRDD<MultiDataSet> data, int evalBatchSize,
      T... emptyEvaluations) {
    if (data == null) {
      throw new IllegalArgumentException("doEvaluationMDS: the RDD is null");
    }
    return SparkEvaluation.evaluate(sc, network.ndrtGraph(), data, Records.MULTI_DATA_SET, evalBatchSize,
        emptyEvaluations);
  }
}
