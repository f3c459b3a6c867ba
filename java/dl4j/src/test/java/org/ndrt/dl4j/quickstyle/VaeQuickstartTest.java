package org.ndrt.dl4j.quickstyle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.variational.BernoulliReconstructionDistribution;
import org.deeplearning4j.nn.conf.layers.variational.ExponentialReconstructionDistribution;
import org.deeplearning4j.nn.conf.layers.variational.VariationalAutoencoder;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The calls of Deeplearning4j's VaeMNISTAnomaly and VaeMNIST2dPlots quickstarts: the VAE configured
 * as there, pretrain(iterator), getLayer(0) as the VAE layer (activate, preOutput,
 * generateAtMeanGivenZ, reconstructionLogProbability), listeners seeing the layer while it
 * pretrains. The MNIST part skips where MNIST is absent ({@code bash packaging/fetch-mnist.sh}).
 */
class VaeQuickstartTest {
  private static boolean mnistPresent() {
    String dir = System.getenv("NDRT_DATA_DIR");
    Path p = dir != null ? Path.of(dir, "mnist") : Path.of(System.getProperty("user.home"), ".cache", "ndrt", "mnist");
    return Files.isDirectory(p);
  }

  /** VaeMNISTAnomaly's configuration. */
  private static MultiLayerConfiguration anomalyConf() {
    return new NeuralNetConfiguration.Builder().seed(12345).updater(new Adam(1e-3)).weightInit(WeightInit.XAVIER)
        .l2(1e-4).list()
        .layer(new VariationalAutoencoder.Builder().activation(Activation.LEAKYRELU).encoderLayerSizes(256, 256)
            .decoderLayerSizes(256, 256).pzxActivationFunction(Activation.IDENTITY)
            .reconstructionDistribution(new BernoulliReconstructionDistribution(Activation.SIGMOID))
            .nIn(28 * 28).nOut(32).build())
        .build();
  }

  /**
   * Deeplearning4j 1.0.0-M2.1's numParams for VaeMNISTAnomaly's layer, from its parameter layout
   * (VariationalAutoencoderParamInitializer): e0 784*256+256, e1 256*256+256, pZXMean and pZXLogStd2
   * 2*(256*32+32), d0 32*256+256, d1 256*256+256, pXZ 256*784+784 = 558,928; the same figure and
   * paramTable keys printed by real Deeplearning4j 1.0.0-M2.1 (from ~/.m2) for this configuration.
   */
  @Test
  void numParamsAsDeeplearning4j() {
    try (MultiLayerNetwork net = new MultiLayerNetwork(anomalyConf())) {
      net.init();
      assertEquals(558_928, net.numParams());
      org.deeplearning4j.nn.layers.variational.VariationalAutoencoder vae =
          (org.deeplearning4j.nn.layers.variational.VariationalAutoencoder) net.getLayer(0);
      assertSame(vae, net.getLayer(0));
      assertEquals(558_928, vae.numParams());
      assertEquals(Arrays.asList("e0W", "e0b", "e1W", "e1b", "pZXMeanW", "pZXMeanb", "pZXLogStd2W", "pZXLogStd2b", "d0W",
          "d0b", "d1W", "d1b", "pXZW", "pXZb"), new ArrayList<>(vae.paramTable().keySet()));
      assertEquals(Arrays.toString(new long[] {256, 784}), Arrays.toString(vae.getParam("pXZW").shape()));
    }
  }

  @Test
  void whatOrgNdrtLacksIsRefusedByName() {
    MultiLayerConfiguration exp = new NeuralNetConfiguration.Builder().list()
        .layer(new VariationalAutoencoder.Builder().nIn(4).nOut(2)
            .reconstructionDistribution(new ExponentialReconstructionDistribution()).build())
        .build();
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> new MultiLayerNetwork(exp).init());
    assertTrue(e.getMessage().contains("ExponentialReconstructionDistribution"), e.getMessage());
    MultiLayerConfiguration loss = new NeuralNetConfiguration.Builder().list()
        .layer(new VariationalAutoencoder.Builder().nIn(4).nOut(2)
            .lossFunction(Activation.SIGMOID, LossFunctions.LossFunction.MSE).build())
        .build();
    e = assertThrows(UnsupportedOperationException.class, () -> new MultiLayerNetwork(loss).init());
    assertTrue(e.getMessage().contains("LossFunctionWrapper"), e.getMessage());
  }

  /** A network without a layer that pretrains: pretrain changes nothing (Deeplearning4j skips such layers). */
  @Test
  void pretrainSkipsLayersThatDoNotPretrain() throws Exception {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(1).updater(new Adam(1e-2)).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(3).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(c)) {
      net.init();
      INDArray before = net.params().dup();
      DataSetIterator it = new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(List.of(
          new org.nd4j.linalg.dataset.DataSet(Nd4j.rand(new int[] {8, 4}), Nd4j.rand(new int[] {8, 2}))), 8);
      net.pretrain(it);
      assertEquals(before, net.params());
    }
  }

  /**
   * VaeMNISTAnomaly for one epoch: the negative ELBO falls far below its start, listeners see the VAE
   * layer, and test digits get a much higher reconstruction log-probability than noise images.
   */
  @Test
  void mnistPretrainingAndReconstructionProbability() throws Exception {
    assumeTrue(mnistPresent(), "MNIST is absent: run bash packaging/fetch-mnist.sh to include this test");
    DataSetIterator trainIter = new MnistDataSetIterator(128, true, 12345);
    Nd4j.getRandom().setSeed(12345);
    try (MultiLayerNetwork net = new MultiLayerNetwork(anomalyConf())) {
      net.init();
      org.deeplearning4j.nn.layers.variational.VariationalAutoencoder vae =
          (org.deeplearning4j.nn.layers.variational.VariationalAutoencoder) net.getLayer(0);
      List<Double> scores = new ArrayList<>();
      List<Model> models = new ArrayList<>();
      net.setListeners(new BaseTrainingListener() {
        @Override
        public void iterationDone(Model model, int iteration, int epoch) {
          scores.add(model.score());
          if (iteration == 1 || iteration % 100 == 0) {
            models.add(model);
          }
        }
      });
      net.pretrain(trainIter);
      assertEquals(469, scores.size(), "one iterationDone per minibatch of 128 over 60000 images");
      assertEquals(469, vae.getIterationCount());
      for (Model m : models) {
        assertSame(vae, m, "listeners see the VAE layer while it pretrains, as in Deeplearning4j");
      }
      double first = scores.get(0);
      double last = scores.subList(449, 469).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
      assertTrue(first > 400 && last < 0.35 * first, "negative ELBO per image: first minibatch " + first
          + ", last 20 " + last);

      DataSet test = new MnistDataSetIterator(500, false, 12345).next();
      INDArray digits = test.getFeatures();
      Random r = new Random(3);
      float[] noise = new float[500 * 784];
      for (int i = 0; i < noise.length; ++i) {
        noise[i] = r.nextFloat();
      }
      double[] lpDigits = vae.reconstructionLogProbability(digits, 16).data().asDouble();
      double[] lpNoise = vae.reconstructionLogProbability(Nd4j.create(noise, new int[] {500, 784}), 16).data().asDouble();
      double[] sortedNoise = lpNoise.clone();
      Arrays.sort(sortedNoise);
      double noiseMax = sortedNoise[sortedNoise.length - 1];
      long above = Arrays.stream(lpDigits).filter(v -> v > noiseMax).count();
      assertTrue(above >= 495, above + " of 500 digits score above the best noise image (" + noiseMax + "); digits'"
          + " mean " + Arrays.stream(lpDigits).average().orElseThrow());

      // The quickstarts' other calls: the mean of q(z|x) as activate / preOutput / the network's output, and decoding it.
      LayerWorkspaceMgr mgr = LayerWorkspaceMgr.noWorkspaces();
      INDArray some = digits.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 10),
          org.nd4j.linalg.indexing.NDArrayIndex.all());
      INDArray mean = vae.activate(some, false, mgr);
      vae.setInput(some, mgr);
      assertEquals(mean, vae.preOutput(false, mgr));  // pzx activation IDENTITY
      assertEquals(mean, net.output(some));
      INDArray rec = vae.generateAtMeanGivenZ(mean);
      assertEquals(Arrays.toString(new long[] {10, 784}), Arrays.toString(rec.shape()));
      assertTrue(rec.minNumber().doubleValue() > 0 && rec.maxNumber().doubleValue() < 1, "Bernoulli means");
      // A reconstruction is closer to its digit than to the others' on average.
      double own = rec.sub(some).norm2Number().doubleValue();
      INDArray shifted = Nd4j.vstack(some.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(1, 10),
          org.nd4j.linalg.indexing.NDArrayIndex.all()), some.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 1),
          org.nd4j.linalg.indexing.NDArrayIndex.all()));
      double other = rec.sub(shifted).norm2Number().doubleValue();
      assertTrue(own < 0.7 * other, "reconstruction distance " + own + " vs to other digits " + other);
    }
  }
}
