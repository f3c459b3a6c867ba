package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nd4j.linalg.indexing.NDArrayIndex.all;
import static org.nd4j.linalg.indexing.NDArrayIndex.point;

import java.util.List;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * What Deeplearning4j 1.0.0-M2.1 does with settings a program leaves out (LayerDefaultsProbe compares
 * against the real jars): an LSTM without activation(...) takes the network's SIGMOID, which ndrt
 * refuses at init with the fix in the message; an EmbeddingSequenceLayer after
 * setInputType(InputType.recurrent(vocabulary)) takes the vocabulary as nIn.
 */
class LayerDefaultsTest {
  private static MultiLayerConfiguration lstm(Activation act) {
    LSTM.Builder b = new LSTM.Builder().nIn(3).nOut(4);
    if (act != null) {
      b.activation(act);
    }
    return new NeuralNetConfiguration.Builder().seed(1).list().layer(b.build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).activation(Activation.IDENTITY).build()).build();
  }

  @Test
  void lstmWithoutActivationIsSigmoidAndRefused() {
    MultiLayerConfiguration conf = lstm(null);
    assertEquals("sigmoid", ((BaseLayer) conf.getConf(0).getLayer()).getActivationFn().toString());
    UnsupportedOperationException ex =
        assertThrows(UnsupportedOperationException.class, () -> new MultiLayerNetwork(conf).init());
    assertTrue(ex.getMessage().contains("SIGMOID") && ex.getMessage().contains(".activation(Activation.TANH)"),
        ex.getMessage());
    assertThrows(UnsupportedOperationException.class, () -> new MultiLayerNetwork(lstm(Activation.RELU)).init());
    MultiLayerNetwork net = new MultiLayerNetwork(lstm(Activation.TANH));
    net.init();
    assertEquals(3 * 16 + 4 * 16 + 16 + 4 * 2 + 2, net.numParams());
  }

  /** dense(IDENTITY) + ActivationLayer(RELU) computes what dense(RELU) does (same seed, same weights). */
  @Test
  void activationLayerAppliesItsActivationAlone() {
    java.util.function.Function<Boolean, MultiLayerNetwork> make = separate -> {
      NeuralNetConfiguration.ListBuilder b = new NeuralNetConfiguration.Builder().seed(4).list()
          .layer(new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(5).nOut(6)
              .activation(separate ? Activation.IDENTITY : Activation.RELU).build());
      if (separate) {
        b.layer(new org.deeplearning4j.nn.conf.layers.ActivationLayer.Builder(Activation.RELU).build());
      }
      MultiLayerNetwork n = new MultiLayerNetwork(b.layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder(
          LossFunction.MCXENT).nIn(6).nOut(3).activation(Activation.SOFTMAX).build()).build());
      n.init();
      return n;
    };
    MultiLayerNetwork fused = make.apply(false);
    MultiLayerNetwork split = make.apply(true);
    assertEquals(fused.numParams(), split.numParams());
    INDArray x = Nd4j.rand(7, 5).subi(0.5);
    assertArrayEquals(fused.output(x).reshape(21).toFloatVector(), split.output(x).reshape(21).toFloatVector(), 1e-6f);
  }

  /** ConvolutionLayer.hasBias(false) leaves the bias out (it was refused before). */
  @Test
  void convolutionWithoutBias() {
    for (boolean bias : new boolean[] {true, false}) {
      MultiLayerNetwork n = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(4).list()
          .layer(new org.deeplearning4j.nn.conf.layers.ConvolutionLayer.Builder(3, 3).nOut(4).hasBias(bias).build())
          .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder(LossFunction.MCXENT).nOut(2)
              .activation(Activation.SOFTMAX).build())
          .setInputType(InputType.convolutional(5, 5, 1)).build());
      n.init();
      assertEquals(4 * 9 + (bias ? 4 : 0) + 4 * 9 * 2 + 2, n.numParams());
      assertEquals(3, n.output(Nd4j.rand(3, 1, 5, 5)).size(0));
    }
  }

  /** A batch norm's own activation applies after the normalisation (it was refused before). */
  @Test
  void batchNormWithAnActivationApplies() {
    java.util.function.Function<Activation, MultiLayerNetwork> make = act -> {
      org.deeplearning4j.nn.conf.layers.BatchNormalization.Builder bn =
          new org.deeplearning4j.nn.conf.layers.BatchNormalization.Builder();
      if (act != null) {
        bn.activation(act);
      }
      MultiLayerNetwork n = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(4).list()
          .layer(new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(5).nOut(6).activation(Activation.IDENTITY).build())
          .layer(bn.build())
          .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder(LossFunction.MSE).nIn(6).nOut(6)
              .activation(Activation.IDENTITY).build()).build());
      n.init();
      return n;
    };
    INDArray x = Nd4j.rand(7, 5).subi(0.5);
    float[] plain = make.apply(null).output(x).reshape(42).toFloatVector();
    float[] relu = make.apply(Activation.RELU).output(x).reshape(42).toFloatVector();
    float[] tanh = make.apply(Activation.TANH).output(x).reshape(42).toFloatVector();
    assertNotEquals(java.util.Arrays.toString(plain), java.util.Arrays.toString(relu));
    assertNotEquals(java.util.Arrays.toString(relu), java.util.Arrays.toString(tanh));
  }

  @Test
  void embeddingTakesTheVocabularyFromARecurrentInputType() {
    for (int given : new int[] {0, 5, 10}) {
      EmbeddingSequenceLayer.Builder eb = new EmbeddingSequenceLayer.Builder().nOut(6);
      if (given > 0) {
        eb.nIn(given);
      }
      MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).list().layer(eb.build())
          .layer(new LSTM.Builder().nOut(4).activation(Activation.TANH).build())
          .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
          .setInputType(InputType.recurrent(10)).build();
      assertTrue(conf.toJson().replace(" ", "").contains("\"nin\":10"), "nIn 10 whatever was given (" + given + ")");
      MultiLayerNetwork net = new MultiLayerNetwork(conf);
      net.init();
      assertEquals(10 * 6 + 6 * 16 + 4 * 16 + 16 + 4 * 2 + 2, net.numParams());
      // Index 9 is only valid with nIn 10; [N, T] and [N, 1, T] indices give the same embedding.
      float[] idx = {1, 9, 1, 0, 2, 9};
      List<INDArray> a = net.feedForward(Nd4j.create(idx, new long[] {2, 1, 3}));
      List<INDArray> b = net.feedForward(Nd4j.create(idx, new long[] {2, 3}));
      INDArray e = a.get(1);
      assertArrayEquals(new long[] {2, 6, 3}, e.shape());
      assertEquals(e, b.get(1));
      assertEquals(e.get(point(0), all(), point(1)), e.get(point(1), all(), point(2)));
      assertNotEquals(0.0, e.getDouble(0, 0, 1), "row 9 was drawn, not left zero");
      assertThrows(IllegalArgumentException.class, () -> net.output(Nd4j.create(new float[] {10, 0, 1}, new long[] {1, 3})));
    }
  }
}
