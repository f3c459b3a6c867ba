package org.deeplearning4j.spark.impl.multilayer;

import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.spark.api.TrainingMaster;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.dataset.DataSet;
import org.ndrt.dl4j.spark.SparkNetwork;

/**
 * Deeplearning4j's MultiLayerNetwork on Spark: {@code fit} trains the driver's network over an RDD of
 * DataSets with the training master (one epoch per call), {@code evaluate} and {@code calculateScore} run on
 * the executors with replicas of it (SparkNetwork). The network is the drop-in's MultiLayerNetwork, whose
 * org.ndrt.nn network org.ndrt.spark trains.
 */
public class SparkDl4jMultiLayer extends SparkNetwork<MultiLayerNetwork> {
  public SparkDl4jMultiLayer(SparkContext sc, MultiLayerNetwork network, TrainingMaster<?, ?> trainingMaster) {
    this(new JavaSparkContext(sc), network, trainingMaster);
  }

  public SparkDl4jMultiLayer(SparkContext sc, MultiLayerConfiguration conf, TrainingMaster<?, ?> trainingMaster) {
    this(new JavaSparkContext(sc), conf, trainingMaster);
  }

  public SparkDl4jMultiLayer(JavaSparkContext sc, MultiLayerConfiguration conf, TrainingMaster<?, ?> trainingMaster) {
    this(sc, network(conf), trainingMaster);
  }

  public SparkDl4jMultiLayer(JavaSparkContext sc, MultiLayerNetwork network, TrainingMaster<?, ?> trainingMaster) {
    super(sc, network, trainingMaster);
  }

  private static MultiLayerNetwork network(MultiLayerConfiguration conf) {
    if (conf == null) {
      throw new IllegalArgumentException("SparkDl4jMultiLayer: the configuration is null");
    }
    return new MultiLayerNetwork(conf);
  }

  @Override
  protected void init(MultiLayerNetwork n) {
    n.init();
  }

  @Override
  protected org.ndrt.nn.Model ndrtModel() {
    return network.ndrtNetwork();
  }

  @Override
  public MultiLayerNetwork fit(JavaRDD<DataSet> trainingData) {
    if (trainingData == null) {
      throw new IllegalArgumentException("fit: the RDD is null");
    }
    trainingMaster.executeTraining(this, trainingData);
    return network;
  }

  /** Deeplearning4j's fit from exported files is not offered: give the RDD of DataSets. */
  public MultiLayerNetwork fit(String path) {
    throw new UnsupportedOperationException("SparkDl4jMultiLayer.fit(String path): ndrt trains on an RDD of DataSets "
        + "(fit(JavaRDD<DataSet>)), not on exported files");
  }

  public double calculateScore(RDD<DataSet> data, boolean average) {
    return calculateScore(data.toJavaRDD(), average);
  }

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
}
