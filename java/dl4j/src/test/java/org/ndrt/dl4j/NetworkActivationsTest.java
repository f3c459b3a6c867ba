package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToRnnPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.RnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.Tensor;
import org.ndrt.nn.TrainerSupport;

/**
 * The drop-in's feedForward / feedForwardToLayer, setInput / setLabels / computeGradientAndScore
 * (org.ndrt.nn computes them: FeedForwardTest checks the numbers against float64), and the
 * RNNEmbedding example's EmbeddingLayer between RNN preprocessors.
 */
class NetworkActivationsTest {
  /** Dense, dense with dropOut (an org.ndrt.nn dropout layer is inserted before it), output. */
  private static MultiLayerConfiguration mlp() {
    return new NeuralNetConfiguration.Builder().seed(11).updater(new Sgd(0.5)).weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(9).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(5).activation(Activation.TANH).dropOut(0.7).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build();
  }

  private static INDArray[] data(int n, long seed) {
    Nd4j.getRandom().setSeed(seed);
    INDArray x = Nd4j.rand(new int[] {n, 6}).subi(0.5);
    INDArray y = Nd4j.zeros(n, 3);
    for (int i = 0; i < n; ++i) {
      y.putScalar(i, (i * 7) % 3, 1.0);
    }
    return new INDArray[] {x, y};
  }

  @Test
  void feedForwardListsInputThenEachLayer() {
    MultiLayerNetwork net = new MultiLayerNetwork(mlp());
    net.init();
    INDArray x = data(7, 1)[0];
    List<INDArray> all = net.feedForward(x);
    assertEquals(4, all.size(), "the input and three layers");
    assertSame(x, all.get(0), "the input first, as Deeplearning4j");
    assertArrayEquals(new long[] {7, 9}, all.get(1).shape());
    assertArrayEquals(new long[] {7, 5}, all.get(2).shape());
    assertArrayEquals(net.output(x).data().asFloat(), all.get(3).data().asFloat(), "the last is output()");
    // The Deeplearning4j layers' activations are org.ndrt.nn's of the layers they map to (its dropout layer skipped).
    try (Tensor in = Tensors.in(x)) {
      List<Tensor> ndrt = net.ndrtNetwork().feedForward(in, false, 3);
      try {
        assertEquals(4, ndrt.size());
        assertArrayEquals(ndrt.get(0).toFloatArray(), all.get(1).data().asFloat());
        assertArrayEquals(ndrt.get(2).toFloatArray(), all.get(2).data().asFloat());
        assertArrayEquals(ndrt.get(3).toFloatArray(), all.get(3).data().asFloat());
      } finally {
        ndrt.forEach(Tensor::close);
      }
    }
    List<INDArray> two = net.feedForwardToLayer(1, x);
    assertEquals(3, two.size());
    assertArrayEquals(all.get(2).data().asFloat(), two.get(2).data().asFloat());
    assertSame(x, net.getInput(), "feedForward sets the input");
    assertEquals(4, net.feedForward(false).size());
    assertThrows(IllegalArgumentException.class, () -> net.feedForwardToLayer(3, x));
    net.close();
  }

  @Test
  void computeGradientAndScoreIsScoreAndFitsGradient() {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(5).updater(new Sgd(0.5))
        .weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
    net.init();
    INDArray[] d = data(10, 2);
    assertThrows(IllegalStateException.class, net::computeGradientAndScore, "no input yet");
    net.setInput(d[0]);
    net.setLabels(d[1]);
    assertSame(d[1], net.getLabels());
    float[] p0 = net.params().data().asFloat();
    net.computeGradientAndScore();
    assertEquals(net.score(new DataSet(d[0], d[1])), net.score(), 1e-6, "score() is score(DataSet)'s");
    assertArrayEquals(p0, net.params().data().asFloat(), "no update");
    float[] g = TrainerSupport.gradients(net.ndrtNetwork()).toFloatArray();
    MultiLayerNetwork twin = net.clone();
    twin.fit(d[0], d[1]);
    float[] p1 = twin.params().data().asFloat();
    int nonzero = 0;
    for (int i = 0; i < g.length; ++i) {
      assertEquals((p0[i] - p1[i]) / 0.5, g[i], 1e-5, "fit's SGD step is -lr * the gradient: " + i);
      nonzero += g[i] != 0 ? 1 : 0;
    }
    assertTrue(nonzero > g.length / 2, "most gradients are nonzero: " + nonzero);
    net.close();
    twin.close();
  }

  /** LoadPreSavedLenetMnistExample's pattern: minibatch files; the iterator has no batch size (batch() throws, as ND4J's). */
  @Test
  void fitsFromSavedMinibatchFiles(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    for (int i = 0; i < 3; ++i) {
      INDArray[] d = data(8, 20 + i);
      new DataSet(d[0], d[1]).save(dir.resolve("mnist-train-" + i + ".bin").toFile());
    }
    org.nd4j.linalg.dataset.api.iterator.DataSetIterator it = new org.nd4j.linalg.dataset.AsyncDataSetIterator(
        new org.nd4j.linalg.dataset.ExistingMiniBatchDataSetIterator(dir.toFile(), "mnist-train-%d.bin"));
    assertThrows(UnsupportedOperationException.class, it::batch);
    MultiLayerNetwork net = new MultiLayerNetwork(mlp());
    net.init();
    net.fit(it, 2);
    assertEquals(6, net.getIterationCount(), "three files, two epochs");
    assertTrue(Double.isFinite(net.score()));
    net.close();
  }

  /** RNNEmbedding's network; {@code pattern}: EmbeddingLayer between the RNN preprocessors, else EmbeddingSequenceLayer. */
  private static MultiLayerConfiguration embedding(boolean pattern) {
    NeuralNetConfiguration.ListBuilder b = new NeuralNetConfiguration.Builder().seed(9).activation(Activation.RELU).list()
        .layer(pattern ? new EmbeddingLayer.Builder().nIn(10).nOut(5).build()
            : new EmbeddingSequenceLayer.Builder().nIn(10).nOut(5).activation(Activation.IDENTITY).build())
        .layer(new LSTM.Builder().nIn(5).nOut(7).activation(Activation.TANH).build())
        .layer(new RnnOutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(7).nOut(4).activation(Activation.SOFTMAX)
            .build());
    if (pattern) {
      b.inputPreProcessor(0, new RnnToFeedForwardPreProcessor()).inputPreProcessor(1, new FeedForwardToRnnPreProcessor());
    }
    return b.build();
  }

  @Test
  void embeddingLayerBetweenRnnPreProcessorsIsAnEmbeddingSequenceLayer() {
    assertEquals(org.ndrt.nn.conf.Activation.IDENTITY, Translator.translate(embedding(true)).conf.layers().get(0).activation(),
        "Deeplearning4j's EmbeddingLayer builder defaults to identity, not the network's RELU");
    MultiLayerNetwork a = new MultiLayerNetwork(embedding(true));
    MultiLayerNetwork b = new MultiLayerNetwork(embedding(false));
    a.init();
    b.init();
    INDArray in = Nd4j.create(3, 1, 8);
    INDArray labels = Nd4j.create(3, 4, 8);
    for (int i = 0; i < 3; ++i) {
      for (int t = 0; t < 8; ++t) {
        in.putScalar(new int[] {i, 0, t}, (i * 8 + t * 3) % 10);
        labels.putScalar(new int[] {i, (i + t) % 4, t}, 1.0);
      }
    }
    assertArrayEquals(b.params().data().asFloat(), a.params().data().asFloat());
    assertArrayEquals(b.output(in).data().asFloat(), a.output(in).data().asFloat());
    a.setInput(in);
    a.setLabels(labels);
    a.computeGradientAndScore();
    assertEquals(b.score(new DataSet(in, labels)), a.score(), 1e-6);
    assertTrue(a.score() > 0 && Double.isFinite(a.score()), "score " + a.score());
    a.close();
    b.close();
    MultiLayerConfiguration alone = new NeuralNetConfiguration.Builder().list()
        .layer(new EmbeddingLayer.Builder().nIn(10).nOut(5).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> new MultiLayerNetwork(alone).init());
    assertTrue(e.getMessage().contains("EmbeddingLayer"), e.getMessage());
  }
}
