package org.ndrt.dl4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.spark.impl.graph.SparkComputationGraph;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.impl.paramavg.ParameterAveragingTrainingMaster;
import org.deeplearning4j.spark.parameterserver.training.SharedTrainingMaster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.nd4j.parameterserver.distributed.conf.VoidConfiguration;

/**
 * SharedTrainingMaster (gradient sharing over TCP in a Spark barrier stage) on local[2]: every step with Adam
 * equals one process on the union of the two workers' minibatches; SparkComputationGraph trains a graph like
 * the same MultiLayerNetwork and fits MultiDataSets of a two-input graph; bad input refused.
 */
class SharedTrainingTest {
  private static JavaSparkContext sc;

  @BeforeAll
  static void start() {
    sc = SparkTestSupport.local2("SharedTrainingTest");
  }

  @AfterAll
  static void stop() {
    sc.stop();
  }

  @Test
  void gradientSharingWithAdamIsOneProcessOnTheGlobalBatch() {
    List<DataSet> records = SparkTestSupport.data(12, 8, 21);
    MultiLayerNetwork driver = new MultiLayerNetwork(SparkTestSupport.mlp(new Adam(0.01), 1e-3));
    driver.init();
    MultiLayerNetwork reference = new MultiLayerNetwork(SparkTestSupport.mlp(new Adam(0.01), 1e-3));
    reference.init();
    SharedTrainingMaster tm = new SharedTrainingMaster.Builder(VoidConfiguration.builder().unicastPort(40123).build(),
        2, 1e-3, 8).batchSizePerWorker(8).build();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, driver, tm);
    List<Double> scores = new ArrayList<>();
    spark.setListeners(new BaseTrainingListener() {
      @Override
      public void iterationDone(Model model, int iteration, int epoch) {
        scores.add(model.score());
      }
    });
    for (int epoch = 0; epoch < 2; ++epoch) {
      spark.fit(sc.parallelize(records, 2));
      for (int r = 0; r < 6; ++r) {
        reference.fit(DataSet.merge(Arrays.asList(records.get(r), records.get(6 + r))));
      }
      double d = SparkTestSupport.relDiff(driver.params(), reference.params());
      assertTrue(d < 1e-5, "epoch " + epoch + ": gradient sharing vs one process, relative difference " + d);
    }
    assertEquals(2, driver.getEpochCount());
    assertEquals(12, driver.getIterationCount());
    assertEquals(12, scores.size(), "the driver's listeners hear every step");
    assertTrue(Double.isFinite(spark.getScore()));
  }

  /** The same MLP as a graph trains as the MultiLayerNetwork does, under both training masters. */
  @Test
  void aGraphTrainsAsTheSameMultiLayerNetwork() {
    List<DataSet> records = SparkTestSupport.data(8, 8, 22);
    for (boolean shared : new boolean[] {false, true}) {
      MultiLayerNetwork mln = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.1), 0));
      mln.init();
      ComputationGraphConfiguration gc = new NeuralNetConfiguration.Builder().seed(42).updater(new Sgd(0.1))
          .graphBuilder().addInputs("in")
          .addLayer("h", new DenseLayer.Builder().nIn(SparkTestSupport.FEATURES).nOut(16)
              .activation(Activation.TANH).build(), "in")
          .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(SparkTestSupport.CLASSES)
              .activation(Activation.SOFTMAX).build(), "h")
          .setOutputs("out").build();
      ComputationGraph graph = new ComputationGraph(gc);
      graph.init();
      graph.setParams(mln.params());
      new SparkDl4jMultiLayer(sc, mln, master(shared)).fit(sc.parallelize(records, 2));
      new SparkComputationGraph(sc, graph, master(shared)).fit(sc.parallelize(records, 2));
      double d = SparkTestSupport.relDiff(graph.params(), mln.params());
      assertTrue(d < 1e-5, (shared ? "shared" : "averaging") + ": graph vs MultiLayerNetwork " + d);
    }
  }

  private static org.deeplearning4j.spark.api.TrainingMaster<?, ?> master(boolean shared) {
    return shared ? new SharedTrainingMaster.Builder(8).batchSizePerWorker(8).build()
        : new ParameterAveragingTrainingMaster.Builder(8).batchSizePerWorker(8).averagingFrequency(1).build();
  }

  /** A two-input graph fits an RDD of MultiDataSets with parameter averaging; its score falls. */
  @Test
  void aTwoInputGraphFitsMultiDataSets() {
    ComputationGraphConfiguration gc = new NeuralNetConfiguration.Builder().seed(7).updater(new Adam(0.01))
        .graphBuilder().addInputs("a", "b")
        .addLayer("ha", new DenseLayer.Builder().nIn(6).nOut(8).activation(Activation.TANH).build(), "a")
        .addLayer("hb", new DenseLayer.Builder().nIn(6).nOut(8).activation(Activation.TANH).build(), "b")
        .addVertex("m", new MergeVertex(), "ha", "hb")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(16).nOut(3)
            .activation(Activation.SOFTMAX).build(), "m")
        .setOutputs("out").build();
    ComputationGraph graph = new ComputationGraph(gc);
    graph.init();
    List<org.nd4j.linalg.dataset.api.MultiDataSet> mds = new ArrayList<>();
    for (DataSet d : SparkTestSupport.data(20, 16, 23)) {
      org.nd4j.linalg.api.ndarray.INDArray f = d.getFeatures();
      mds.add(new MultiDataSet(new org.nd4j.linalg.api.ndarray.INDArray[] {
          f.get(org.nd4j.linalg.indexing.NDArrayIndex.all(), org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 6)).dup(),
          f.get(org.nd4j.linalg.indexing.NDArrayIndex.all(), org.nd4j.linalg.indexing.NDArrayIndex.interval(6, 12)).dup()},
          new org.nd4j.linalg.api.ndarray.INDArray[] {d.getLabels()}));
    }
    SparkComputationGraph spark = new SparkComputationGraph(sc, graph,
        new ParameterAveragingTrainingMaster.Builder(16).batchSizePerWorker(16).averagingFrequency(2).build());
    org.apache.spark.api.java.JavaRDD<org.nd4j.linalg.dataset.api.MultiDataSet> rdd = sc.parallelize(mds, 2);
    double before = spark.calculateScoreMultiDataSet(rdd, true);
    for (int e = 0; e < 5; ++e) {
      spark.fitMultiDataSet(rdd);
    }
    double after = spark.calculateScoreMultiDataSet(rdd, true);
    assertTrue(after < 0.7 * before, "score " + before + " -> " + after);
    assertTrue(spark.evaluateMDS(rdd).accuracy() > 0.6);
    // Gradient sharing takes DataSets (one input, one output): a two-input graph is refused by name.
    SparkComputationGraph shared = new SparkComputationGraph(sc, graph, new SharedTrainingMaster.Builder(16).build());
    Exception e = assertThrows(Exception.class, () -> shared.fitMultiDataSet(rdd));
    assertTrue(String.valueOf(e.getMessage()).contains("one features and one labels array"), e.getMessage());
  }

  @Test
  void badInputIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new SharedTrainingMaster.Builder(0));
    assertThrows(IllegalArgumentException.class, () -> new SharedTrainingMaster.Builder(8).batchSizePerWorker(0));
    assertThrows(IllegalArgumentException.class,
        () -> new SharedTrainingMaster.Builder(VoidConfiguration.builder().build(), 0, 1e-3, 8));
    assertThrows(IllegalArgumentException.class, () -> VoidConfiguration.builder().unicastPort(70000));
    MultiLayerNetwork net = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.1), 0));
    net.init();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, net,
        new SharedTrainingMaster.Builder(8).batchSizePerWorker(64).build());
    IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
        () -> spark.fit(sc.parallelize(SparkTestSupport.data(4, 8, 24), 2)));
    assertTrue(small.getMessage().contains("fewer than batchSizePerWorker"), small.getMessage());
  }
}
