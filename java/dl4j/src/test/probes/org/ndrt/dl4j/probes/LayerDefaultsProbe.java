package org.ndrt.dl4j.probes;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Defaults a configuration takes when a program leaves them out, against Deeplearning4j 1.0.0-M2.1:
 * an LSTM without activation(...) (Deeplearning4j: the network-wide default, sigmoid; ndrt refuses
 * it at init, so only the configuration is compared) and an EmbeddingSequenceLayer after
 * setInputType(InputType.recurrent(vocabulary)) (nIn from the input type, with or without a given
 * nIn: the parameter count shows nIn 10; the network then takes indices [N, 1, T] or [N, T]).
 */
public class LayerDefaultsProbe {
  public static void main(String[] args) {
    MultiLayerConfiguration lstm = new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new LSTM.Builder().nIn(3).nOut(4).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    System.out.println("lstm without activation: " + ((BaseLayer) lstm.getConf(0).getLayer()).getActivationFn());
    for (String mode : new String[] {"no nIn", "nIn 5", "nIn 10"}) {
      EmbeddingSequenceLayer.Builder eb = new EmbeddingSequenceLayer.Builder().nOut(6);
      if (!mode.equals("no nIn")) {
        eb.nIn(Integer.parseInt(mode.substring(4)));
      }
      MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(1).list()
          .layer(eb.build())
          .layer(new LSTM.Builder().nOut(4).activation(Activation.TANH).build())
          .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
          .setInputType(InputType.recurrent(10)).build();
      FeedForwardLayer e = (FeedForwardLayer) c.getConf(0).getLayer();
      System.out.println("embedding, " + mode + ", recurrent(10): nIn " + e.getNIn() + " nOut " + e.getNOut()
          + " activation " + e.getActivationFn());
      MultiLayerNetwork net = new MultiLayerNetwork(c);
      net.init();
      System.out.println("  parameters " + net.numParams());
      float[] idx = {1, 3, 9, 0, 2, 4};
      System.out.println("  output of [2, 1, 3] indices "
          + Arrays.toString(net.output(Nd4j.create(idx, new long[] {2, 1, 3})).shape()));
      System.out.println("  output of [2, 3] indices "
          + Arrays.toString(net.output(Nd4j.create(idx, new long[] {2, 3})).shape()));
    }
  }
}
