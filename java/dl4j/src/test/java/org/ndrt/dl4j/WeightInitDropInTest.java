package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.distribution.BinomialDistribution;
import org.deeplearning4j.nn.conf.distribution.ConstantDistribution;
import org.deeplearning4j.nn.conf.distribution.Distribution;
import org.deeplearning4j.nn.conf.distribution.GaussianDistribution;
import org.deeplearning4j.nn.conf.distribution.LogNormalDistribution;
import org.deeplearning4j.nn.conf.distribution.NormalDistribution;
import org.deeplearning4j.nn.conf.distribution.OrthogonalDistribution;
import org.deeplearning4j.nn.conf.distribution.TruncatedNormalDistribution;
import org.deeplearning4j.nn.conf.distribution.UniformDistribution;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.nn.TrainerSupport;
import org.ndrt.nn.conf.layers.Layer;

/**
 * The drop-in's weightInit / distributions, biasInit and gradientNormalization reach org.ndrt.nn's layers
 * (whose numbers WeightInitTest and GradientNormalizationTest check against formulas and float64), and
 * a first layer with dropOut needs no input type.
 */
class WeightInitDropInTest {
  /** ModelXOR's configuration (Deeplearning4j's quickstart). */
  static MultiLayerConfiguration xor() {
    return new NeuralNetConfiguration.Builder().updater(new Sgd(0.1)).seed(1234).biasInit(0).miniBatch(false).list()
        .layer(new DenseLayer.Builder().nIn(2).nOut(4).activation(Activation.SIGMOID)
            .weightInit(new UniformDistribution(0, 1)).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD).nOut(2)
            .activation(Activation.SOFTMAX).weightInit(new UniformDistribution(0, 1)).build())
        .build();
  }

  static double[] param(MultiLayerNetwork net, int layer, int param) {
    long[] r = TrainerSupport.gradientRanges(net.ndrtNetwork())[layer];
    double[] p = net.ndrtNetwork().params().toDoubleArray();
    return Arrays.copyOfRange(p, (int) r[2 * param], (int) (r[2 * param] + r[2 * param + 1]));
  }

  @Test
  void modelXorInitialisesFromItsUniformDistribution() {
    MultiLayerNetwork net = new MultiLayerNetwork(xor());
    net.init();
    for (int l = 0; l < 2; ++l) {
      for (double w : param(net, l, 0)) {
        assertTrue(w >= 0 && w < 1, "U(0, 1) weight " + w);
      }
      for (double b : param(net, l, 1)) {
        assertEquals(0, b);
      }
    }
    MultiLayerNetwork again = new MultiLayerNetwork(xor());
    again.init();
    assertArrayEquals(param(net, 0, 0), param(again, 0, 0));
  }

  @Test
  void everySchemeAndDistributionMapsToOrgNdrtNn() {
    for (WeightInit w : WeightInit.values()) {
      if (w != WeightInit.DISTRIBUTION) {
        assertEquals(w.name(), w.toNdrt().name());
      }
    }
    Distribution[] dl4j = {new UniformDistribution(-1, 2), new NormalDistribution(0.5, 2), new GaussianDistribution(1, 3),
        new TruncatedNormalDistribution(0.1, 0.4), new LogNormalDistribution(0.2, 0.3), new BinomialDistribution(4, 0.25),
        new OrthogonalDistribution(1.5), new ConstantDistribution(0.75)};
    org.ndrt.nn.conf.Distribution[] ndrt = {org.ndrt.nn.conf.Distribution.uniform(-1, 2),
        org.ndrt.nn.conf.Distribution.normal(0.5, 2), org.ndrt.nn.conf.Distribution.normal(1, 3),
        org.ndrt.nn.conf.Distribution.truncatedNormal(0.1, 0.4), org.ndrt.nn.conf.Distribution.logNormal(0.2, 0.3),
        org.ndrt.nn.conf.Distribution.binomial(4, 0.25), org.ndrt.nn.conf.Distribution.orthogonal(1.5),
        org.ndrt.nn.conf.Distribution.constant(0.75)};
    for (int i = 0; i < dl4j.length; ++i) {
      MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(3).weightInit(WeightInit.RELU).list()
          .layer(new DenseLayer.Builder().nIn(6).nOut(5).dist(dl4j[i]).build())
          .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
              .weightInit(WeightInit.LECUN_UNIFORM).build())
          .build();
      org.ndrt.nn.conf.MultiLayerConfiguration t = Translator.translate(c).conf;
      assertEquals(org.ndrt.nn.conf.WeightInit.DISTRIBUTION, t.layers().get(0).weightInit());
      assertEquals(ndrt[i], t.layers().get(0).distribution(), dl4j[i].toString());
      assertEquals(org.ndrt.nn.conf.WeightInit.LECUN_UNIFORM, t.layers().get(1).weightInit());
      // The drop-in's JSON keeps the distribution.
      MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(c.toJson());
      assertEquals(ndrt[i], Translator.translate(back).conf.layers().get(0).distribution(), dl4j[i].toString());
      new MultiLayerNetwork(c).init();
    }
    Distribution custom = new Distribution() {};
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(5).weightInit(custom).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> new MultiLayerNetwork(c).init());
    assertTrue(e.getMessage().contains("DenseLayer") && e.getMessage().contains("distribution"), e.getMessage());
  }

  @Test
  void biasInitPerLayerAndNetwork() {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(3).biasInit(0.375).list()
        .layer(new DenseLayer.Builder().nIn(3).nOut(4).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
            .biasInit(-1.25).build())
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    assertArrayEquals(new double[] {0.375, 0.375, 0.375, 0.375}, param(net, 0, 1));
    assertArrayEquals(new double[] {-1.25, -1.25}, param(net, 1, 1));
  }

  @Test
  void gradientNormalizationPerLayerWithTheNetworkDefault() {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(3)
        .gradientNormalization(GradientNormalization.ClipElementWiseAbsoluteValue).gradientNormalizationThreshold(0.5)
        .list()
        .layer(new DenseLayer.Builder().nIn(3).nOut(4).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
            .gradientNormalization(GradientNormalization.RenormalizeL2PerParamType).build())
        .build();
    Layer l0 = Translator.translate(c).conf.layers().get(0);
    Layer l1 = Translator.translate(c).conf.layers().get(1);
    assertEquals(org.ndrt.nn.conf.GradientNormalization.ClipElementWiseAbsoluteValue, l0.gradientNormalization());
    assertEquals(0.5, l0.gradientNormalizationThreshold());
    assertEquals(org.ndrt.nn.conf.GradientNormalization.RenormalizeL2PerParamType, l1.gradientNormalization());
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    net.fit(Nd4j.rand(5, 3), Nd4j.rand(5, 2));
  }

  @Test
  void firstLayerWithDropOutNeedsNoInputType() {
    MultiLayerConfiguration c = new NeuralNetConfiguration.Builder().seed(3).list()
        .layer(new DenseLayer.Builder().nIn(7).nOut(4).dropOut(0.8).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    INDArray out = net.output(Nd4j.rand(5, 7));
    assertArrayEquals(new long[] {5, 2}, out.shape());
    net.fit(Nd4j.rand(5, 7), Nd4j.rand(5, 2));
    assertEquals(7 * 4 + 4 + 4 * 2 + 2, net.numParams());
  }
}
