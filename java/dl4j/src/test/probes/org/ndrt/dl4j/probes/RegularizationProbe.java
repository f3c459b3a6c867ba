package org.ndrt.dl4j.probes;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.CenterLossOutputLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A layer's own l1 / l2 / weight decay of weights and biases (scores and parameters over three steps
 * from fixed parameters and data, with SGD, Adam and Nesterovs; a network-wide l2 only: the fused
 * path), and CenterLossOutputLayer (its centers move outside the updater; gradientCheck's form too).
 */
public class RegularizationProbe {
  static float[] values(int n, double a, double s) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) (s * Math.sin(a * (i + 1)));
    }
    return v;
  }

  static void run(String tag, IUpdater u, boolean perLayer) {
    NeuralNetConfiguration.Builder g = new NeuralNetConfiguration.Builder().seed(5).updater(u)
        .weightInit(WeightInit.XAVIER);
    OutputLayer.Builder o = new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nIn(4).nOut(1)
        .activation(Activation.TANH);
    if (perLayer) {
      g.l2(0.004).weightDecay(0.01);
      o.l1(0.03).l2(0.02).l1Bias(0.01).l2Bias(0.05).weightDecayBias(0.2);  // weightDecay: the network's
    } else {
      g.l2(0.3);
    }
    report(tag, g.list().layer(o.build()).build(), 4, 0);
  }

  /**
   * One layer whose W is a vector (nIn or nOut 1): the drop-in's flat parameters are laid out as
   * org.ndrt.nn's (weights of all layers first, row-major), Deeplearning4j's per layer, W column-major.
   */
  static void report(String tag, MultiLayerConfiguration c, int nIn, int classes) {
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    net.setParams(Nd4j.create(values((int) net.numParams(), 1.7, 0.6), new long[] {1, net.numParams()}));
    INDArray x = Nd4j.create(values(6 * nIn, 0.9, 1.0), new long[] {6, nIn});
    INDArray y = Nd4j.create(values(6, 2.3, 1.0), new long[] {6, 1});
    if (classes > 0) {
      y = Nd4j.zeros(6, classes);
      for (int i = 0; i < 6; i++) {
        y.putScalar(i, (i * 7) % classes == 2 ? 0 : (i * 7) % classes, 1.0);  // class 2 never: its center stays
      }
    }
    System.out.println(tag + " numParams " + net.numParams());
    System.out.println(tag + " score(DataSet) " + String.format("%.7e", net.score(new DataSet(x, y))));
    for (int i = 0; i < 3; i++) {
      net.fit(x, y);
      System.out.println(tag + " step " + i + " score " + String.format("%.7e", net.score()));
    }
    StringBuilder sb = new StringBuilder(tag + " params");
    for (double v : net.params().toDoubleVector()) {
      sb.append(' ').append(String.format("%.7e", v));
    }
    System.out.println(sb);
  }

  static void centerLoss(String tag, IUpdater u, boolean gradientCheck) {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(5).updater(u).list()
        .layer(new CenterLossOutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(1).nOut(3)
            .activation(Activation.SOFTMAX).alpha(0.3).lambda(0.5).gradientCheck(gradientCheck).build())
        .build();
    report(tag, c, 1, 3);
  }

  public static void main(String[] args) {
    run("sgd", new Sgd(0.2), true);
    run("adam", new Adam(0.05), true);
    run("nesterovs", new Nesterovs(0.1, 0.9), true);
    run("uniform-l2", new Sgd(0.2), false);
    centerLoss("center-sgd", new Sgd(0.2), false);
    centerLoss("center-adam", new Adam(0.05), false);
    centerLoss("center-gradcheck", new Sgd(0.2), true);
  }
}
