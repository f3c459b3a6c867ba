package org.ndrt.dl4j.probes;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Weight initialisation scale against Deeplearning4j 1.0.0-M2.1: the random numbers differ, so each
 * line prints, over the nonzero parameters (the output layer starts at zero), their count, variance and
 * largest magnitude relative to the formula's with Deeplearning4j's fans, to one decimal: the fans
 * (dense, strided convolution, LSTM) and formulas must agree.
 */
public class WeightInitProbe {
  static void line(String name, MultiLayerNetwork net, double variance, double bound) {
    net.init();
    double[] p = net.params().toDoubleVector();
    int n = 0;
    double s = 0;
    double s2 = 0;
    double max = 0;
    for (double x : p) {
      if (x != 0) {
        ++n;
        s += x;
        s2 += x * x;
        max = Math.max(max, Math.abs(x));
      }
    }
    double var = s2 / n - (s / n) * (s / n);
    // ND4J's truncated normal leaves about 2.3% of the values at exactly 0 (ndrt's does not): no count there.
    String count = name.contains("truncated") ? "" : "n " + n + ", ";
    System.out.printf("%s: %svariance / expected %.1f, max / bound %.1f%n", name, count, var / variance,
        bound > 0 ? max / bound : 0);
  }

  static MultiLayerNetwork dense(WeightInit w) {
    return new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new DenseLayer.Builder().nIn(200).nOut(300).activation(Activation.TANH).weightInit(w).build())
        .layer(zeroOutput(new OutputLayer.Builder(LossFunction.MSE)))
        .build());
  }

  static Layer zeroOutput(OutputLayer.Builder b) {
    return b.nOut(2).activation(Activation.IDENTITY).weightInit(WeightInit.ZERO).build();
  }

  public static void main(String[] args) {
    double in = 200;
    double out = 300;
    line("dense XAVIER_UNIFORM", dense(WeightInit.XAVIER_UNIFORM), 2 / (in + out), Math.sqrt(6 / (in + out)));
    line("dense SIGMOID_UNIFORM", dense(WeightInit.SIGMOID_UNIFORM), 32 / (in + out), 4 * Math.sqrt(6 / (in + out)));
    line("dense LECUN_UNIFORM", dense(WeightInit.LECUN_UNIFORM), 3 / in, 3 / Math.sqrt(in));
    line("dense XAVIER_LEGACY", dense(WeightInit.XAVIER_LEGACY), 1 / (in + out), 0);
    line("dense RELU", dense(WeightInit.RELU), 2 / in, 0);
    line("dense VAR_SCALING_NORMAL_FAN_AVG (truncated)", dense(WeightInit.VAR_SCALING_NORMAL_FAN_AVG), 2 / (in + out),
        2 * Math.sqrt(2 / (in + out)));
    line("dense VAR_SCALING_UNIFORM_FAN_OUT", dense(WeightInit.VAR_SCALING_UNIFORM_FAN_OUT), 3 / out, 3 / Math.sqrt(out));
    // nIn 8, nOut 256, kernel 5x5, stride 2: fanIn 200, fanOut 1600.
    for (WeightInit w : new WeightInit[] {WeightInit.XAVIER_UNIFORM, WeightInit.VAR_SCALING_UNIFORM_FAN_OUT}) {
      double a = w == WeightInit.XAVIER_UNIFORM ? Math.sqrt(6.0 / 1800) : 3 / Math.sqrt(1600);
      line("conv " + w, new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(1).list()
          .layer(new ConvolutionLayer.Builder(5, 5).stride(2, 2).nOut(256).activation(Activation.IDENTITY).weightInit(w)
              .build())
          .layer(zeroOutput(new OutputLayer.Builder(LossFunction.MSE)))
          .setInputType(InputType.convolutional(9, 9, 8)).build()), a * a / 3, a);
    }
    // LSTM nIn 50, nOut 100: fanIn 100, fanOut 150 (W and RW).
    line("LSTM XAVIER_UNIFORM", new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new LSTM.Builder().nIn(50).nOut(100).activation(Activation.TANH).forgetGateBiasInit(0).weightInit(WeightInit.XAVIER_UNIFORM).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
            .weightInit(WeightInit.ZERO).build())
        .setInputType(InputType.recurrent(50)).build()), 2.0 / 250, Math.sqrt(6.0 / 250));
  }
}
