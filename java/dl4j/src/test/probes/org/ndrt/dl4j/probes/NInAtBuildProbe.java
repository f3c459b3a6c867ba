package org.ndrt.dl4j.probes;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Each layer's nIn right after the list builder's build(), against Deeplearning4j 1.0.0-M2.1, which
 * sets it from the input type (given, or implied by a first dense layer's nIn): an MLP, LeNet on
 * convolutionalFlat(28, 28, 1), an LSTM with an RnnOutputLayer, and a given nIn that differs from
 * the input type's, then the parameter count of the network built from it.
 */
public class NInAtBuildProbe {
  public static void main(String[] args) {
    show("mlp feedForward(4)", new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new DenseLayer.Builder().nOut(5).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(4)).build());
    show("mlp first nIn(4), no input type", new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .build());
    show("lenet convolutionalFlat(28, 28, 1)", new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new ConvolutionLayer.Builder(5, 5).stride(1, 1).nOut(20).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new ConvolutionLayer.Builder(5, 5).stride(1, 1).nOut(50).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().nOut(500).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1)).build());
    show("lstm recurrent(5)", new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new LSTM.Builder().nOut(8).activation(Activation.TANH).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(5)).build());
    show("dense nIn(7) given, feedForward(4)", new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new DenseLayer.Builder().nIn(7).nOut(5).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(9).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(4)).build());
  }

  private static void show(String name, MultiLayerConfiguration c) {
    StringBuilder s = new StringBuilder(name + ": nIn at build");
    for (int i = 0; i < c.getConfs().size(); ++i) {
      Layer l = c.getConf(i).getLayer();
      s.append(' ').append(l.getClass().getSimpleName()).append('=')
          .append(l instanceof FeedForwardLayer ? Long.toString(((FeedForwardLayer) l).getNIn()) : "-");
    }
    System.out.println(s);
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    System.out.println("  parameters " + net.numParams());
  }
}
