package org.ndrt.nn.conf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.api.OptimizationAlgorithm;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.conf.layers.setup.ConvolutionLayerSetup;
import org.ndrt.nn.updater.AdaGrad;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.nn.updater.RmsProp;
import org.ndrt.nn.updater.Sgd;

/**
 * Deeplearning4j's older configuration forms give the configuration their modern equivalents give
 * (compared as JSON), refuse what ndrt cannot do with a message naming the alternative, and warn
 * once per form on one line naming the modern one.
 */
@SuppressWarnings("deprecation") // the deprecated forms are what is tested
class Dl4jLegacyApiTest {
  /** Runs {@code r} with System.err captured; returns what it printed. */
  private static String stderr(Runnable r) {
    PrintStream before = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setErr(before);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }

  private static NeuralNetConfiguration.ListBuilder small(NeuralNetConfiguration.Builder b) {
    return b.list()
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build())
        .setInputType(InputType.feedForward(2));
  }

  @Test
  void theEnumUpdaterWithLearningRateAndMomentumIsTheUpdaterObject() {
    MultiLayerConfiguration old = small(new NeuralNetConfiguration.Builder().seed(1)
        .learningRate(0.01).updater(Updater.NESTEROVS).momentum(0.8)).build(); // any order, as in DL4J
    MultiLayerConfiguration modern = small(new NeuralNetConfiguration.Builder().seed(1).updater(new Nesterovs(0.01, 0.8))).build();
    assertEquals(modern.toJson(), old.toJson());

    // Without learningRate: Deeplearning4j's default rate of each updater; Nesterovs' momentum 0.9.
    assertEquals(new Nesterovs(0.1, 0.9), small(new NeuralNetConfiguration.Builder().updater(Updater.NESTEROVS)).build().updater());
    assertEquals(new Adam(1e-3), small(new NeuralNetConfiguration.Builder().updater(Updater.ADAM)).build().updater());
    assertEquals(new AdaGrad(0.1), small(new NeuralNetConfiguration.Builder().updater(Updater.ADAGRAD)).build().updater());
    assertEquals(new RmsProp(0.1), small(new NeuralNetConfiguration.Builder().updater(Updater.RMSPROP)).build().updater());
    assertEquals(new Sgd(1e-3), small(new NeuralNetConfiguration.Builder().updater(Updater.SGD)).build().updater());
    assertEquals(new AdaGrad(0.1), small(new NeuralNetConfiguration.Builder().updater(Updater.ADAGRAD).learningRate(0.1)).build().updater());
    assertEquals(new Sgd(0.05), small(new NeuralNetConfiguration.Builder().learningRate(0.05)).build().updater(),
        "learningRate alone: Deeplearning4j 0.x's default updater, SGD");

    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> new NeuralNetConfiguration.Builder().updater(Updater.ADADELTA));
    assertTrue(none.getMessage().contains("ADADELTA is not in ndrt yet"), none.getMessage());
    IllegalArgumentException mixed = assertThrows(IllegalArgumentException.class,
        () -> new NeuralNetConfiguration.Builder().updater(new Adam(0.01)).learningRate(0.1));
    assertTrue(mixed.getMessage().contains("new Adam(0.01)"), mixed.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().learningRate(0.1).updater(new Adam(0.01)));
  }

  @Test
  void regularizationIterationsOptimizationAlgoListAndBackprop() {
    MultiLayerConfiguration modern = small(new NeuralNetConfiguration.Builder().seed(3).l2(5e-4).updater(new AdaGrad(0.1))).build();
    MultiLayerConfiguration old = new NeuralNetConfiguration.Builder().seed(3).iterations(1).regularization(true).l2(5e-4)
        .learningRate(0.1).optimizationAlgo(OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT).updater(Updater.ADAGRAD)
        .miniBatch(true).list(2)
        .layer(0, new DenseLayer.Builder().nOut(4).activation("relu").build())
        .layer(1, new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3).activation("softmax").build())
        .setInputType(InputType.feedForward(2))
        .backprop(true).pretrain(false)
        .build();
    assertEquals(modern.toJson(), old.toJson());

    // Deeplearning4j 0.x: l2 applies only with regularization(true); regularization(false) turns it off.
    assertEquals(0.0, small(new NeuralNetConfiguration.Builder().regularization(false).l2(0.1)).build().l2());
    assertEquals(0.0, small(new NeuralNetConfiguration.Builder().l2(0.1).regularization(false)).build().l2());
    assertEquals(0.1, small(new NeuralNetConfiguration.Builder().l2(0.1)).build().l2(), "l2 alone applies (modern)");

    IllegalArgumentException it = assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().iterations(3));
    assertTrue(it.getMessage().contains("3 times as many epochs"), it.getMessage());
    IllegalArgumentException lbfgs = assertThrows(IllegalArgumentException.class,
        () -> new NeuralNetConfiguration.Builder().optimizationAlgo(OptimizationAlgorithm.LBFGS));
    assertTrue(lbfgs.getMessage().contains("STOCHASTIC_GRADIENT_DESCENT"), lbfgs.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().list().backprop(false));
    assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().list().pretrain(true));
    IllegalArgumentException act = assertThrows(IllegalArgumentException.class,
        () -> new DenseLayer.Builder().activation("softsign"));
    assertTrue(act.getMessage().contains("relu"), act.getMessage());
    assertSame(Activation.IDENTITY, Activation.fromString("linear"));
    assertSame(Activation.LEAKYRELU, Activation.fromString("LeakyReLU"));
  }

  @Test
  void theEarlyConvolutionalFormsGiveTheModernConfiguration() {
    MultiLayerConfiguration.Builder builder = new NeuralNetConfiguration.Builder().seed(5).list()
        .layer(0, new ConvolutionLayer.Builder(5, 5).nIn(1).stride(1, 1).nOut(4).activation("identity").build())
        .layer(1, new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX, new int[] {2, 2}).build())
        .layer(2, new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation("softmax").build())
        .backprop(true).pretrain(false);
    new ConvolutionLayerSetup(builder, 28, 28, 1);
    MultiLayerConfiguration old = builder.build();
    MultiLayerConfiguration modern = new NeuralNetConfiguration.Builder().seed(5).list()
        .layer(new ConvolutionLayer.Builder(5, 5).nIn(1).stride(1, 1).nOut(4).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1))
        .build();
    assertEquals(modern.toJson(), old.toJson());
    assertEquals(4 * 12 * 12, old.layerInput(2).size, "nIn inferred as with setInputType");
    assertArrayEquals(new int[] {3, 3}, ((SubsamplingLayer) new NeuralNetConfiguration.Builder().list()
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.AVG, new int[] {3, 3}, new int[] {3, 3}).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(1).activation(Activation.IDENTITY).build())
        .setInputType(InputType.convolutional(9, 9, 1)).build().layers().get(0)).stride());

    assertEquals(LossFunction.L1, LossFunctions.LossFunction.MEAN_ABSOLUTE_ERROR.toNdrt());
    IllegalArgumentException hinge = assertThrows(IllegalArgumentException.class,
        () -> new OutputLayer.Builder(LossFunctions.LossFunction.HINGE));
    assertTrue(hinge.getMessage().contains("HINGE is not in ndrt yet"), hinge.getMessage());
  }

  @Test
  void eachDeprecatedFormWarnsOnceOnOneLineNamingTheModernOne() {
    // Forms no other test of this JVM uses, so the first call here is the first of the JVM.
    String first = stderr(() -> small(new NeuralNetConfiguration.Builder().updater(Updater.RMSPROP).learningRate(0.002)
        .momentum(0.5)).build());
    assertEquals("ndrt: updater(Updater.RMSPROP).learningRate(0.002).momentum(0.5) is deprecated Deeplearning4j API; "
        + "use updater(new RmsProp(0.002))" + System.lineSeparator(), first);
    String again = stderr(() -> small(new NeuralNetConfiguration.Builder().updater(Updater.RMSPROP).learningRate(0.002)
        .momentum(0.5)).build());
    assertEquals("", again, "once per JVM");
    String act = stderr(() -> new DenseLayer.Builder().activation("TANH"));
    assertEquals("ndrt: activation(\"TANH\") is deprecated Deeplearning4j API; use activation(Activation.TANH)"
        + System.lineSeparator(), act);
    String off = stderr(() -> {
      System.setProperty("ndrt.legacy.warnings", "false");
      try {
        new DenseLayer.Builder().activation("Sigmoid");
      } finally {
        System.clearProperty("ndrt.legacy.warnings");
      }
    });
    assertEquals("", off, "-Dndrt.legacy.warnings=false silences them");
  }

  @Test
  void dataSetNetworkAndEvaluationInDeeplearning4jsWords() {
    try (MultiLayerNetwork net = new MultiLayerNetwork(small(new NeuralNetConfiguration.Builder().seed(2)).build());
         Tensor x = Tensor.from(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);
         Tensor y = Tensor.from(new float[] {1, 0, 0, 0, 1, 0, 0, 0, 1}, 3, 3);
         DataSet ds = new DataSet(x.share(), y.share())) {
      net.init();
      assertSame(ds.features(), ds.getFeatures());
      assertSame(ds.labels(), ds.getLabels());
      assertSame(ds.features(), ds.getFeatureMatrix());
      Evaluation eval = new Evaluation();
      assertEquals(0, eval.numClasses());
      assertThrows(IllegalStateException.class, () -> eval.eval(0, 0));
      try (Tensor out = net.output(ds.getFeatureMatrix(), false); Tensor plain = net.output(x)) {
        assertArrayEquals(plain.toFloatArray(), out.toFloatArray());
        eval.eval(ds.getLabels(), out);
      }
      assertEquals(3, eval.numClasses(), "the classes come from the first labels");
      assertEquals(3, eval.numExamples());
      Evaluation merged = new Evaluation();
      merged.merge(eval);
      assertEquals(3, merged.numClasses());
      assertEquals(eval.accuracy(), merged.accuracy());
      assertTrue(eval.stats().contains("# of classes:    3"));
      assertTrue(new Evaluation().stats().contains("# of examples:   0"));
      net.setListeners(List.of());
      assertEquals(0, net.getListeners().size());
    }
  }
}
