package org.deeplearning4j.spark.impl.graph;

import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.spark.api.TrainingMaster;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.ndrt.dl4j.spark.Records;
import org.ndrt.dl4j.spark.SparkEvaluation;
import org.ndrt.dl4j.spark.SparkNetwork;

/**
 * Deeplearning4j's ComputationGraph on Spark: {@code fit} (RDDs of DataSets, one input and one output) and
 * {@code fitMultiDataSet} train the driver's graph with the training master, one epoch per call;
 * evaluation and scoring run on the executors with replicas (a graph's first output against its first
 * labels).
 */
public class SparkComputationGraph extends SparkNetwork<ComputationGraph> {
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
    this(sc, graph(conf), trainingMaster);
  }

  @SuppressWarnings("rawtypes")
  public SparkComputationGraph(JavaSparkContext sc, ComputationGraph network, TrainingMaster trainingMaster) {
    super(sc, network, trainingMaster);
  }

  private static ComputationGraph graph(ComputationGraphConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("SparkComputationGraph: the configuration is null");
    }
    return new ComputationGraph(conf);
  }

  @Override
  protected void init(ComputationGraph g) {
    g.init();
  }

  @Override
  protected org.ndrt.nn.Model ndrtModel() {
    return network.ndrtGraph();
  }

  @Override
  public ComputationGraph fit(JavaRDD<DataSet> trainingData) {
    if (trainingData == null) {
      throw new IllegalArgumentException("fit: the RDD is null");
    }
    trainingMaster.executeTraining(this, trainingData);
    return network;
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

  public double calculateScoreMultiDataSet(JavaRDD<MultiDataSet> data, boolean average) {
    return calculateScoreMultiDataSet(data, average, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  public double calculateScoreMultiDataSet(JavaRDD<MultiDataSet> data, boolean average, int minibatchSize) {
    return SparkEvaluation.score(sc, ndrtModel(), data, Records.MULTI_DATA_SET, average, minibatchSize);
  }

  public <T extends Evaluation> T evaluateMDS(JavaRDD<MultiDataSet> data) {
    return evaluateMDS(data, DEFAULT_EVAL_SCORE_BATCH_SIZE);
  }

  @SuppressWarnings({"unchecked", "deprecation"})
  public <T extends Evaluation> T evaluateMDS(JavaRDD<MultiDataSet> data, int minibatchSize) {
    return (T) doEvaluationMDS(data, minibatchSize, new org.deeplearning4j.eval.Evaluation())[0];
  }

  @SafeVarargs
  @SuppressWarnings({"rawtypes", "varargs"})
  public final <T extends IEvaluation> T[] doEvaluationMDS(JavaRDD<MultiDataSet> data, int evalBatchSize,
      T... emptyEvaluations) {
    if (data == null) {
      throw new IllegalArgumentException("doEvaluationMDS: the RDD is null");
    }
    return SparkEvaluation.evaluate(sc, ndrtModel(), data, Records.MULTI_DATA_SET, evalBatchSize, emptyEvaluations);
  }
}
