package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.variational.VariationalAutoencoder;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.DType;
import org.ndrt.Tensor;

/**
 * The Deeplearning4j drop-in against org.ndrt.nn directly: same parameters after training (the adapter
 * adds nothing numerically), configuration JSON round trip, save/load bit for bit, refusals by name.
 */
class Dl4jDropInTest {
  private static MultiLayerConfiguration mlp(long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).updater(new Nesterovs(0.05, 0.9)).l2(1e-4)
        .weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(16).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3)
            .activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build();
  }

  private static org.ndrt.nn.conf.MultiLayerConfiguration ndrtMlp(long seed) {
    return new org.ndrt.nn.conf.NeuralNetConfiguration.Builder().seed(seed)
        .updater(new org.ndrt.nn.updater.Nesterovs(0.05, 0.9)).l2(1e-4)
        .weightInit(org.ndrt.nn.conf.WeightInit.XAVIER).list()
        .layer(new org.ndrt.nn.conf.layers.DenseLayer.Builder().nIn(6).nOut(16)
            .activation(org.ndrt.nn.conf.Activation.RELU).build())
        .layer(new org.ndrt.nn.conf.layers.DenseLayer.Builder().nOut(8)
            .activation(org.ndrt.nn.conf.Activation.TANH).build())
        .layer(new org.ndrt.nn.conf.layers.OutputLayer.Builder(org.ndrt.nn.conf.LossFunction.NEGATIVELOGLIKELIHOOD)
            .nOut(3).activation(org.ndrt.nn.conf.Activation.SOFTMAX).build())
        .setInputType(org.ndrt.nn.conf.InputType.feedForward(6)).build();
  }

  /** Features [n, 6] and one-hot labels [n, 3] from a fixed rule (class = argmax of three feature sums). */
  private static INDArray[] data(int n, long seed) {
    Nd4j.getRandom().setSeed(seed);
    INDArray x = Nd4j.rand(new int[] {n, 6});
    INDArray s = Nd4j.hstack(x.getColumn(0, true).add(x.getColumn(1, true)), x.getColumn(2, true).add(x.getColumn(3, true)),
        x.getColumn(4, true).add(x.getColumn(5, true)));
    INDArray y = Nd4j.zeros(n, 3);
    int[] arg = s.argMax(1).toIntVector();
    for (int i = 0; i < n; ++i) {
      y.putScalar(i, arg[i], 1.0);
    }
    return new INDArray[] {x, y};
  }

  @Test
  void sameParametersAsOrgNdrtNn() {
    MultiLayerNetwork a = new MultiLayerNetwork(mlp(42));
    a.init();
    try (org.ndrt.nn.MultiLayerNetwork b = new org.ndrt.nn.MultiLayerNetwork(ndrtMlp(42))) {
      b.init();
      assertArrayEquals(b.params().toFloatArray(), a.params().toFloatVector());
      for (int step = 0; step < 20; ++step) {
        INDArray[] d = data(32, step);
        a.fit(d[0], d[1]);
        try (org.ndrt.data.DataSet ds = new org.ndrt.data.DataSet(Tensors.in(d[0]), Tensors.in(d[1]))) {
          b.fit(ds);
        }
        assertEquals(b.score(), a.score(), 0.0);
      }
      assertArrayEquals(b.params().toFloatArray(), a.params().toFloatVector());
      INDArray[] t = data(64, 99);
      try (Tensor in = Tensors.in(t[0]); Tensor out = b.output(in)) {
        assertArrayEquals(out.toFloatArray(), a.output(t[0]).data().asFloat());
      }
    } finally {
      a.close();
    }
  }

  @Test
  void jsonRoundTrip() {
    MultiLayerConfiguration c = mlp(7);
    String json = c.toJson();
    MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(json);
    assertEquals(json, back.toJson());
    assertEquals(c, back);
    assertEquals(c.toNdrt().toJson(), back.toNdrt().toJson());
    assertTrue(json.contains("Nesterovs"), json);
  }

  @Test
  void saveLoadBitForBit(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    MultiLayerNetwork a = new MultiLayerNetwork(mlp(3));
    a.init();
    for (int step = 0; step < 5; ++step) {
      INDArray[] d = data(16, step);
      a.fit(d[0], d[1]);
    }
    File f = dir.resolve("net.zip").toFile();
    a.save(f, true);
    MultiLayerNetwork b = ModelSerializer.restoreMultiLayerNetwork(f, true);
    assertEquals(a.getLayerWiseConfigurations(), b.getLayerWiseConfigurations());
    assertArrayEquals(a.params().toFloatVector(), b.params().toFloatVector());
    for (int step = 5; step < 10; ++step) {
      INDArray[] d = data(16, step);
      a.fit(d[0], d[1]);
      b.fit(d[0], d[1]);
    }
    assertArrayEquals(a.params().toFloatVector(), b.params().toFloatVector());
    assertTrue(Files.size(f.toPath()) > 0);
    a.close();
    b.close();
  }

  @Test
  void lenetBuildsAndTrains() {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(123).l2(5e-4).weightInit(WeightInit.XAVIER)
        .updater(new Nesterovs(0.01, 0.9)).list()
        .layer(new ConvolutionLayer.Builder(5, 5).nIn(1).stride(1, 1).nOut(8).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().activation(Activation.RELU).nOut(32).dropOut(0.8).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10)
            .activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(12, 12, 1)).build();
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    assertTrue(net.summary().contains("ConvolutionLayer"), net.summary());
    Nd4j.getRandom().setSeed(1);
    INDArray x = Nd4j.rand(new int[] {8, 144});
    INDArray y = Nd4j.zeros(8, 10);
    for (int i = 0; i < 8; ++i) {
      y.putScalar(i, i % 10, 1.0);
    }
    double first = Double.NaN;
    for (int i = 0; i < 10; ++i) {
      net.fit(x, y);
      first = i == 0 ? net.score() : first;
    }
    assertTrue(net.score() < first, first + " -> " + net.score());
    assertArrayEquals(new long[] {8, 10}, net.output(x).shape());
    net.close();
  }

  @Test
  void unsupportedLayersRefusedByName() {
    MultiLayerConfiguration vae = new NeuralNetConfiguration.Builder().list()
        .layer(new VariationalAutoencoder.Builder().nIn(4).nOut(2).encoderLayerSizes(8).decoderLayerSizes(8)
            .reconstructionDistribution(new org.deeplearning4j.nn.conf.layers.variational.ExponentialReconstructionDistribution())
            .build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(4).activation(Activation.IDENTITY).build())
        .build();
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> new MultiLayerNetwork(vae).init());
    assertTrue(e.getMessage().contains("VariationalAutoencoder"), e.getMessage());
    MultiLayerConfiguration perLayer = new NeuralNetConfiguration.Builder().updater(new Nesterovs(0.1, 0.9)).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(4).updater(new Nesterovs(0.2, 0.9)).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    e = assertThrows(UnsupportedOperationException.class, () -> new MultiLayerNetwork(perLayer).init());
    assertTrue(e.getMessage().contains("per-layer updater"), e.getMessage());
    DType.values();
  }
}
