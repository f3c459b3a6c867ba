package org.ndrt.dl4j.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** Shared by the Spark tests: a local[2] context, random classification data, a small MLP. */
final class SparkTestSupport {
  static final int FEATURES = 12;
  static final int CLASSES = 3;

  private SparkTestSupport() {}

  static JavaSparkContext local2(String name) {
    SparkConf conf = new SparkConf().setMaster("local[2]").setAppName(name)
        .set("spark.ui.enabled", "false")
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1");
    return new JavaSparkContext(conf);
  }

  /** {@code count} DataSets of {@code size} examples: Gaussian features, labels from a random linear teacher. */
  static List<DataSet> data(int count, int size, long seed) {
    Random r = new Random(seed);
    double[][] teacher = new double[FEATURES][CLASSES];
    for (double[] row : teacher) {
      for (int c = 0; c < CLASSES; ++c) {
        row[c] = r.nextGaussian();
      }
    }
    List<DataSet> out = new ArrayList<>();
    for (int d = 0; d < count; ++d) {
      float[] x = new float[size * FEATURES];
      float[] y = new float[size * CLASSES];
      for (int i = 0; i < size; ++i) {
        double[] score = new double[CLASSES];
        for (int f = 0; f < FEATURES; ++f) {
          x[i * FEATURES + f] = (float) r.nextGaussian();
          for (int c = 0; c < CLASSES; ++c) {
            score[c] += x[i * FEATURES + f] * teacher[f][c];
          }
        }
        int best = 0;
        for (int c = 1; c < CLASSES; ++c) {
          best = score[c] > score[best] ? c : best;
        }
        y[i * CLASSES + best] = 1;
      }
      INDArray xs = Nd4j.create(x, new long[] {size, FEATURES});
      INDArray ys = Nd4j.create(y, new long[] {size, CLASSES});
      out.add(new DataSet(xs, ys));
    }
    return out;
  }

  static MultiLayerConfiguration mlp(IUpdater updater, double l2) {
    return new NeuralNetConfiguration.Builder().seed(42).updater(updater).l2(l2).weightInit(WeightInit.XAVIER)
        .list()
        .layer(new DenseLayer.Builder().nIn(FEATURES).nOut(16).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(CLASSES)
            .activation(Activation.SOFTMAX).build())
        .build();
  }

  /** Relative L2 distance of two parameter vectors. */
  static double relDiff(INDArray a, INDArray b) {
    double[] x = a.toDoubleVector();
    double[] y = b.toDoubleVector();
    double num = 0;
    double den = 0;
    for (int i = 0; i < x.length; ++i) {
      num += (x[i] - y[i]) * (x[i] - y[i]);
      den += y[i] * y[i];
    }
    return Math.sqrt(num / den);
  }
}
