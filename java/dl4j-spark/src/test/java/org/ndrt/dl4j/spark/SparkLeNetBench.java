package org.ndrt.dl4j.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.impl.paramavg.ParameterAveragingTrainingMaster;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.Ndrt;

/**
 * LeNet training throughput on Spark (tests/bench/run_lenet_spark.sh runs it beside the MPI trainer):
 * Deeplearning4j's LeNet (the demo's) through SparkDl4jMultiLayer with parameter averaging every
 * {@code --averaging} minibatches of {@code --batch} examples per worker, on {@code --master} (local[2]),
 * one intra-op thread per task. The first fit stages the RDD and warms up; then {@code --reps} timed fits
 * of one epoch over {@code --examples} MNIST training examples ({@code --shared true}: gradient sharing,
 * SharedTrainingMaster, instead), each printing one JSON line
 * {@code {"impl":"ndrt-spark","img_s":...,"seconds":...,"rounds":...}}.
 *
 * <p>{@code --accuracy N}: instead, N epochs over the whole training set with the seed program's training
 * master (32 examples per DataSet and per worker, averaging every 5, saveUpdater), then the test set's
 * accuracy, evaluated on Spark: one JSON line {@code {"impl":"ndrt-spark","epochs":N,"accuracy":...}}
 * (tests/run_seed.sh checks it reaches 0.98).
 */
public final class SparkLeNetBench {
  private SparkLeNetBench() {}

  static MultiLayerConfiguration lenet() {
    return new NeuralNetConfiguration.Builder().seed(123).l2(0.0005).weightInit(WeightInit.XAVIER)
        .updater(new Nesterovs(0.01, 0.9)).list()
        .layer(new ConvolutionLayer.Builder(5, 5).nIn(1).stride(1, 1).nOut(20).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new ConvolutionLayer.Builder(5, 5).stride(1, 1).nOut(50).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().activation(Activation.RELU).nOut(500).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10)
            .activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1)).build();
  }

  /**
   * The context's settings: no UI, and results up to 64 MB straight back to the driver (a worker's result,
   * parameters and updater state, is 3.4 MB for LeNet; Spark's default sends results over 1 MB through
   * the block manager, about 10 ms more per round here).
   */
  static SparkConf conf(String master) {
    return new SparkConf().setMaster(master).setAppName("SparkLeNetBench").set("spark.ui.enabled", "false")
        .set("spark.driver.host", "127.0.0.1").set("spark.task.maxDirectResultSize", "64m");
  }

  private static List<DataSet> all(DataSetIterator it) {
    List<DataSet> out = new ArrayList<>();
    while (it.hasNext()) {
      out.add(it.next());
    }
    return out;
  }

  private static void accuracy(String master, int epochs) throws Exception {
    JavaSparkContext sc = new JavaSparkContext(conf(master));
    try {
      JavaRDD<DataSet> train = sc.parallelize(all(new MnistDataSetIterator(32, true, 12345)));
      JavaRDD<DataSet> test = sc.parallelize(all(new MnistDataSetIterator(32, false, 12345)));
      MultiLayerNetwork net = new MultiLayerNetwork(lenet());
      net.init();
      ParameterAveragingTrainingMaster tm = new ParameterAveragingTrainingMaster.Builder(32)
          .workerPrefetchNumBatches(0).saveUpdater(true).averagingFrequency(5).batchSizePerWorker(32).build();
      SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, net, tm);
      for (int e = 0; e < epochs; ++e) {
        spark.fit(train);
      }
      double acc = spark.evaluate(test).accuracy();
      System.out.printf("{\"impl\":\"ndrt-spark\",\"master\":\"%s\",\"epochs\":%d,\"accuracy\":%.4f}%n", master,
          epochs, acc);
    } finally {
      sc.stop();
    }
  }

  public static void main(String[] args) throws Exception {
    String master = "local[2]";
    int batch = 64;
    int averaging = 5;
    int examples = 38400;
    int reps = 1;
    int accuracyEpochs = 0;
    boolean shared = false;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--master": master = args[i + 1]; break;
        case "--batch": batch = Integer.parseInt(args[i + 1]); break;
        case "--averaging": averaging = Integer.parseInt(args[i + 1]); break;
        case "--examples": examples = Integer.parseInt(args[i + 1]); break;
        case "--reps": reps = Integer.parseInt(args[i + 1]); break;
        case "--accuracy": accuracyEpochs = Integer.parseInt(args[i + 1]); break;
        case "--shared": shared = Boolean.parseBoolean(args[i + 1]); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Ndrt.setConfig("cpu.threads", "1");  // one thread per Spark task: the tasks are the parallelism
    if (accuracyEpochs > 0) {
      accuracy(master, accuracyEpochs);
      return;
    }
    List<DataSet> data = new ArrayList<>();
    DataSetIterator it = new MnistDataSetIterator(batch, true, 123);
    while (it.hasNext() && data.size() * batch < examples) {
      data.add(it.next());
    }
    JavaSparkContext sc = new JavaSparkContext(conf(master));
    try {
      JavaRDD<DataSet> rdd = sc.parallelize(data, sc.defaultParallelism());
      MultiLayerNetwork net = new MultiLayerNetwork(lenet());
      net.init();
      org.deeplearning4j.spark.api.TrainingMaster<?, ?> tm = shared
          ? new org.deeplearning4j.spark.parameterserver.training.SharedTrainingMaster.Builder(batch)
              .batchSizePerWorker(batch).build()
          : new ParameterAveragingTrainingMaster.Builder(batch).batchSizePerWorker(batch).averagingFrequency(averaging)
              .build();
      SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, net, tm);
      spark.fit(rdd);  // stages the RDD, warms up
      for (int r = 0; r < reps; ++r) {
        long t0 = System.nanoTime();
        spark.fit(rdd);
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("{\"impl\":\"ndrt-spark\",\"master\":\"%s\",\"workers\":%d,\"batch\":%d,\"averaging\":%d,"
            + "\"examples\":%d,\"seconds\":%.3f,\"img_s\":%.1f,\"score\":%.4f}%n", master, sc.defaultParallelism(), batch,
            shared ? 0 : averaging, data.size() * batch, s, data.size() * batch / s, spark.getScore());
      }
    } finally {
      sc.stop();
    }
  }
}
