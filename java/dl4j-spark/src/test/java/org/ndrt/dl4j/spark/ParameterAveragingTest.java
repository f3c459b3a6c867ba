package org.ndrt.dl4j.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.spark.api.Repartition;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.impl.paramavg.ParameterAveragingTrainingMaster;
import org.deeplearning4j.spark.parameterserver.training.SharedTrainingMaster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * SparkDl4jMultiLayer with ParameterAveragingTrainingMaster on Spark local[2]: averaging every step with
 * SGD is one process stepping on the union of the workers' minibatches; records are cut and joined to
 * batchSizePerWorker; evaluate and calculateScore on the executors equal the driver's own; bad input refused.
 */
class ParameterAveragingTest {
  private static JavaSparkContext sc;

  @BeforeAll
  static void start() {
    sc = SparkTestSupport.local2("ParameterAveragingTest");
  }

  @AfterAll
  static void stop() {
    sc.stop();
  }

  /**
   * Two partitions of 6 records; worker p fits record r of its partition in round r. The reference fits the
   * merge of both workers' round-r records, in one process.
   */
  @Test
  void averagingEveryStepWithSgdIsOneProcessOnTheGlobalBatch() {
    List<DataSet> records = SparkTestSupport.data(12, 8, 1);
    MultiLayerNetwork driver = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.2), 1e-3));
    driver.init();
    MultiLayerNetwork reference = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.2), 1e-3));
    reference.init();
    assertEquals(0, SparkTestSupport.relDiff(driver.params(), reference.params()), "same seed, same start");

    ParameterAveragingTrainingMaster tm = new ParameterAveragingTrainingMaster.Builder(2, 8)
        .batchSizePerWorker(8).averagingFrequency(1).repartionData(Repartition.Never).build();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, driver, tm);
    spark.fit(sc.parallelize(records, 2));
    for (int epoch = 0; epoch < 1; ++epoch) {
      for (int r = 0; r < 6; ++r) {
        reference.fit(DataSet.merge(Arrays.asList(records.get(r), records.get(6 + r))));
      }
    }
    double d = SparkTestSupport.relDiff(driver.params(), reference.params());
    assertTrue(d < 1e-5, "Spark parameter averaging vs one process: relative difference " + d);
    assertTrue(SparkTestSupport.relDiff(driver.params(), spark.getNetwork().params()) == 0);
    assertEquals(1, driver.getEpochCount());
    assertEquals(6, driver.getIterationCount());
    assertTrue(Double.isFinite(spark.getScore()) && spark.getScore() > 0, "score " + spark.getScore());

    // A second epoch goes on from there, as fit on the driver would.
    spark.fit(sc.parallelize(records, 2));
    for (int r = 0; r < 6; ++r) {
      reference.fit(DataSet.merge(Arrays.asList(records.get(r), records.get(6 + r))));
    }
    d = SparkTestSupport.relDiff(driver.params(), reference.params());
    assertTrue(d < 1e-5, "after a second epoch: relative difference " + d);
    assertEquals(2, driver.getEpochCount());
  }

  /** Records of 4 examples, minibatches of 8: worker p's round-r minibatch is records 2r and 2r+1 of its partition. */
  @Test
  void recordsAreJoinedToTheWorkersBatchSize() {
    List<DataSet> records = SparkTestSupport.data(8, 4, 2);
    MultiLayerNetwork driver = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.1), 0));
    driver.init();
    MultiLayerNetwork reference = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.1), 0));
    reference.init();
    ParameterAveragingTrainingMaster tm = new ParameterAveragingTrainingMaster.Builder(2, 4)
        .batchSizePerWorker(8).averagingFrequency(1).repartionData(Repartition.Never).build();
    new SparkDl4jMultiLayer(sc, driver, tm).fit(sc.parallelize(records, 2));
    for (int r = 0; r < 2; ++r) {
      reference.fit(DataSet.merge(Arrays.asList(records.get(2 * r), records.get(2 * r + 1), records.get(4 + 2 * r),
          records.get(5 + 2 * r))));
    }
    double d = SparkTestSupport.relDiff(driver.params(), reference.params());
    assertTrue(d < 1e-5, "joined records: relative difference " + d);
    assertEquals(2, driver.getIterationCount());
  }

  /** Averaging every 3 steps with momentum: the partitions are rebalanced, training learns, counters follow. */
  @Test
  void averagingEveryFewStepsLearns() {
    List<DataSet> train = SparkTestSupport.data(60, 16, 3);
    MultiLayerNetwork driver = new MultiLayerNetwork(SparkTestSupport.mlp(new Nesterovs(0.05, 0.9), 1e-4));
    driver.init();
    ParameterAveragingTrainingMaster tm = new ParameterAveragingTrainingMaster.Builder(16)
        .batchSizePerWorker(16).averagingFrequency(3).workerPrefetchNumBatches(0).saveUpdater(true).build();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, driver, tm);
    JavaRDD<DataSet> rdd = sc.parallelize(train, 3);  // 3 partitions for 2 workers: rebalanced
    double before = spark.calculateScore(rdd, true);
    for (int e = 0; e < 4; ++e) {
      spark.fit(rdd);
    }
    double after = spark.calculateScore(rdd, true);
    assertTrue(after < 0.5 * before, "score " + before + " -> " + after);
    assertEquals(4, driver.getEpochCount());
    assertEquals(4 * 30, driver.getIterationCount());  // per epoch: 30 minibatches a worker, 3 a round
    Evaluation ev = spark.evaluate(rdd);
    assertTrue(ev.accuracy() > 0.8, "accuracy " + ev.accuracy());
  }

  /** evaluate and calculateScore on the executors give what the driver's network gives on the same data. */
  @Test
  @SuppressWarnings("deprecation")
  void evaluationAndScoreOnTheExecutorsEqualTheDrivers() {
    List<DataSet> test = SparkTestSupport.data(10, 20, 4);
    MultiLayerNetwork net = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.1), 1e-3));
    net.init();
    for (DataSet d : SparkTestSupport.data(20, 16, 5)) {
      net.fit(d);
    }
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, net, new ParameterAveragingTrainingMaster.Builder(20).build());
    JavaRDD<DataSet> rdd = sc.parallelize(test, 2);

    Evaluation onSpark = spark.evaluate(rdd);
    assertTrue(onSpark instanceof org.deeplearning4j.eval.Evaluation, "the older Evaluation class, as DL4J returns");
    DataSetIterator it = new ListDataSetIterator<>(test, 1);
    Evaluation local = net.evaluate(it);
    assertEquals(200, onSpark.getNumRowCounter());
    assertEquals(local.accuracy(), onSpark.accuracy(), 0.0);
    assertArrayEquals(counts(local), counts(onSpark));
    // Minibatches of 7 cut from records of 20: the same counts.
    Evaluation cut = spark.doEvaluation(rdd, 7, new Evaluation())[0];
    assertArrayEquals(counts(local), counts(cut));

    double expected = 0;
    for (DataSet d : test) {
      expected += net.score(d) * d.numExamples();
    }
    assertEquals(expected / 200, spark.calculateScore(rdd, true), 1e-5 * expected / 200);
    assertEquals(expected, spark.calculateScore(rdd, false), 1e-5 * expected);
  }

  private static long[] counts(Evaluation e) {
    List<Long> c = new ArrayList<>();
    for (int a = 0; a < SparkTestSupport.CLASSES; ++a) {
      for (int p = 0; p < SparkTestSupport.CLASSES; ++p) {
        c.add((long) e.getConfusionMatrix().getCount(a, p));
      }
    }
    return c.stream().mapToLong(Long::longValue).toArray();
  }

  @Test
  void badInputIsRefused() {
    MultiLayerNetwork net = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.1), 0));
    net.init();
    ParameterAveragingTrainingMaster tm = new ParameterAveragingTrainingMaster.Builder(8).build();
    assertThrows(IllegalArgumentException.class, () -> new ParameterAveragingTrainingMaster.Builder(0));
    assertThrows(IllegalArgumentException.class, () -> new ParameterAveragingTrainingMaster.Builder(8).averagingFrequency(0));
    assertThrows(IllegalArgumentException.class, () -> new ParameterAveragingTrainingMaster.Builder(8).batchSizePerWorker(-1));
    assertThrows(IllegalArgumentException.class, () -> new ParameterAveragingTrainingMaster.Builder(0, 8));
    assertThrows(UnsupportedOperationException.class,
        () -> new ParameterAveragingTrainingMaster.Builder(8).collectTrainingStats(true).build());
    assertThrows(IllegalArgumentException.class, () -> new SparkDl4jMultiLayer(sc, net, null));
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, net, tm);
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
        () -> spark.fit(sc.parallelize(new ArrayList<DataSet>(), 2)));
    assertTrue(empty.getMessage().contains("no examples"), empty.getMessage());
    // Records that do not fit the network: the worker's exception reaches the driver, the network is unchanged.
    double[] before = net.params().toDoubleVector();
    List<DataSet> wrong = SparkTestSupport.data(4, 8, 6);
    List<DataSet> bad = new ArrayList<>();
    for (DataSet d : wrong) {
      bad.add(new DataSet(d.getFeatures().get(org.nd4j.linalg.indexing.NDArrayIndex.all(),
          org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 5)).dup(), d.getLabels()));
    }
    Exception e = assertThrows(Exception.class, () -> spark.fit(sc.parallelize(bad, 2)));
    assertFalse(e.getMessage() == null || e.getMessage().isEmpty());
    assertArrayEquals(before, net.params().toDoubleVector(), 0.0);
    assertThrows(UnsupportedOperationException.class, () -> spark.fit("/some/path"));
  }

  /** The refusals of the Spark network's own methods and of the trainers, each triggered once. */
  @Test
  void moreBadInputIsRefused() {
    MultiLayerNetwork net = new MultiLayerNetwork(SparkTestSupport.mlp(new Sgd(0.1), 0));
    net.init();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, net,
        new ParameterAveragingTrainingMaster.Builder(4).batchSizePerWorker(8).averagingFrequency(1).build());
    JavaRDD<DataSet> rdd = sc.parallelize(SparkTestSupport.data(4, 4, 7), 2);
    assertThrows(IllegalArgumentException.class, () -> spark.setNetwork(null));
    assertThrows(IllegalArgumentException.class, () -> spark.setDefaultEvaluationWorkers(0));
    assertThrows(IllegalArgumentException.class, () -> spark.fit((JavaRDD<DataSet>) null));
    assertThrows(IllegalArgumentException.class, () -> spark.doEvaluation(null, 8, new Evaluation()));
    assertThrows(IllegalArgumentException.class, () -> spark.doEvaluation(rdd, 8));
    assertThrows(IllegalArgumentException.class, () -> spark.doEvaluation(rdd, 0, new Evaluation()));
    assertThrows(IllegalArgumentException.class, () -> spark.calculateScore(rdd, true, 0));
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> spark.calculateScore(sc.parallelize(new ArrayList<DataSet>(), 2), true));
    assertTrue(none.getMessage().contains("no examples"), none.getMessage());

    // Records joined into one minibatch where one has a features mask and the other none: refused by the
    // worker, the error reaches the driver.
    List<DataSet> mixed = new ArrayList<>();
    for (DataSet d : SparkTestSupport.data(4, 4, 8)) {
      boolean masked = mixed.size() % 2 == 0;
      mixed.add(new DataSet(d.getFeatures(), d.getLabels(),
          masked ? org.nd4j.linalg.factory.Nd4j.ones(4, 1) : null, null));
    }
    Exception joined = assertThrows(Exception.class, () -> spark.fit(sc.parallelize(mixed, 2)));
    assertTrue(String.valueOf(joined.getMessage()).contains("some have none"), joined.getMessage());

    // Mixed precision is refused before any Spark job.
    MultiLayerNetwork half = new MultiLayerNetwork(new org.deeplearning4j.nn.conf.NeuralNetConfiguration.Builder()
        .seed(1).updater(new Sgd(0.1)).dataType(org.nd4j.linalg.api.buffer.DataType.BFLOAT16).list()
        .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder(
            org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction.MCXENT).nIn(SparkTestSupport.FEATURES)
            .nOut(SparkTestSupport.CLASSES).activation(org.nd4j.linalg.activations.Activation.SOFTMAX).build())
        .build());
    half.init();
    UnsupportedOperationException mixedPrecision = assertThrows(UnsupportedOperationException.class,
        () -> new SparkDl4jMultiLayer(sc, half, new ParameterAveragingTrainingMaster.Builder(4).build()).fit(rdd));
    assertTrue(mixedPrecision.getMessage().contains("mixed-precision"), mixedPrecision.getMessage());
    assertThrows(UnsupportedOperationException.class,
        () -> new SparkDl4jMultiLayer(sc, half, new SharedTrainingMaster.Builder(4).build()).fit(rdd));
    assertThrows(IllegalArgumentException.class,
        () -> new org.deeplearning4j.optimize.solvers.accumulation.encoding.threshold.AdaptiveThresholdAlgorithm(0));
    assertThrows(IllegalArgumentException.class,
        () -> new org.deeplearning4j.optimize.solvers.accumulation.encoding.threshold.FixedThresholdAlgorithm(-1));
  }
}
