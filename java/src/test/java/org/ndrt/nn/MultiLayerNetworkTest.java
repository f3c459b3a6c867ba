package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.DType;
import org.ndrt.Memory;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.nn.updater.Updater;

/** The network on small random problems: wiring (finite differences), configuration errors, save/load. */
class MultiLayerNetworkTest {
  /** A small CNN over 6x6x1 images, 3 classes: every layer type on the path. */
  static MultiLayerConfiguration smallCnn(Updater u, double l2, boolean withBnAndDropout) {
    NeuralNetConfiguration.ListBuilder b = new NeuralNetConfiguration.Builder()
        .seed(7).l2(l2).weightInit(WeightInit.XAVIER).updater(u)
        .list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).activation(Activation.TANH).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build());
    if (withBnAndDropout) {
      b.layer(new BatchNormalization.Builder().build()).layer(new DropoutLayer.Builder(0.25).build());
    }
    return b.layer(new DenseLayer.Builder().nOut(8).activation(Activation.SIGMOID).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(6, 6, 1))
        .build();
  }

  static DataSet randomData(int n, int features, int classes, long seed) {
    Random r = new Random(seed);
    float[] x = new float[n * features];
    float[] y = new float[n * classes];
    for (int i = 0; i < x.length; ++i) {
      x[i] = r.nextFloat() * 2 - 1;
    }
    for (int i = 0; i < n; ++i) {
      y[i * classes + r.nextInt(classes)] = 1;
    }
    return new DataSet(Tensor.from(x, n, features), Tensor.from(y, n, classes));
  }

  @Test
  void gradientsMatchFiniteDifferences() {
    // SGD with lr 1 and no L2: one step moves the parameters by exactly -gradient.
    try (MultiLayerNetwork net = new MultiLayerNetwork(smallCnn(new Sgd(1.0), 0, false));
         DataSet ds = randomData(5, 36, 3, 11)) {
      net.init();
      float[] p0 = net.params().toFloatArray();
      double l0 = net.score(ds);
      net.fit(ds);
      assertEquals(l0, net.score(), 1e-6, "the training score is the inference score without dropout/BN");
      float[] p1 = net.params().toFloatArray();
      try (Tensor restore = Tensor.from(p0, p0.length)) {
        net.setParams(restore);
      }
      Random r = new Random(3);
      double h = 1e-2;
      int checked = 0;
      for (int k = 0; k < 60; ++k) {
        int i = r.nextInt(p0.length);
        double analytic = p0[i] - p1[i];
        float[] q = p0.clone();
        q[i] = (float) (p0[i] + h);
        double lp = scoreWith(net, q, ds);
        q[i] = (float) (p0[i] - h);
        double lm = scoreWith(net, q, ds);
        double fd = (lp - lm) / (2 * h);
        assertEquals(fd, analytic, 2e-3 + 2e-2 * Math.abs(fd), "parameter " + i);
        checked += analytic != 0 ? 1 : 0;
      }
      assertTrue(checked > 30, "most sampled gradients are nonzero: " + checked);
    }
  }

  @Test
  void everyActivationAndLossBackpropagates() {
    // Hidden activations x output losses on a dense net: gradients vs finite differences.
    Activation[] hidden = {Activation.RELU, Activation.LEAKYRELU, Activation.TANH, Activation.SIGMOID, Activation.ELU,
        Activation.GELU, Activation.SOFTMAX, Activation.IDENTITY};
    Object[][] outputs = {{LossFunction.MCXENT, Activation.SOFTMAX}, {LossFunction.MSE, Activation.TANH},
        {LossFunction.L1, Activation.IDENTITY}, {LossFunction.XENT, Activation.SIGMOID}};
    int k = 0;
    for (Activation h : hidden) {
      Object[] o = outputs[k++ % outputs.length];
      MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(k).updater(new Sgd(1.0))
          .weightInit(WeightInit.XAVIER_UNIFORM)
          .list()
          .layer(new DenseLayer.Builder().nIn(5).nOut(6).activation(h).build())
          .layer(new OutputLayer.Builder((LossFunction) o[0]).nOut(3).activation((Activation) o[1]).build())
          .build();
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf); DataSet ds = softTargets(4, 5, 3, k)) {
        net.init();
        float[] p0 = net.params().toFloatArray();
        net.fit(ds);
        float[] p1 = net.params().toFloatArray();
        for (int i = 0; i < p0.length; ++i) {
          float[] q = p0.clone();
          q[i] = (float) (p0[i] + 1e-2);
          double lp = scoreWith(net, q, ds);
          q[i] = (float) (p0[i] - 1e-2);
          double lm = scoreWith(net, q, ds);
          double fd = (lp - lm) / 2e-2;
          assertEquals(fd, p0[i] - p1[i], 3e-3 + 3e-2 * Math.abs(fd), h + " + " + o[0] + ": parameter " + i);
        }
      }
    }
  }

  /** Targets in (0, 1) that suit every loss (one-hot-like rows for the classifiers). */
  static DataSet softTargets(int n, int features, int classes, long seed) {
    Random r = new Random(seed);
    float[] x = new float[n * features];
    float[] y = new float[n * classes];
    for (int i = 0; i < x.length; ++i) {
      x[i] = r.nextFloat() * 2 - 1;
    }
    for (int i = 0; i < n; ++i) {
      int c = r.nextInt(classes);
      for (int j = 0; j < classes; ++j) {
        y[i * classes + j] = j == c ? 0.9f : 0.1f / (classes - 1);
      }
    }
    return new DataSet(Tensor.from(x, n, features), Tensor.from(y, n, classes));
  }

  private static double scoreWith(MultiLayerNetwork net, float[] p, DataSet ds) {
    try (Tensor t = Tensor.from(p, p.length)) {
      net.setParams(t);
    }
    return net.score(ds);
  }

  @Test
  void lossFallsForEveryUpdater() {
    for (Updater u : new Updater[] {new Sgd(0.1), new Nesterovs(0.05, 0.9), new org.ndrt.nn.updater.AdaGrad(0.05),
        new org.ndrt.nn.updater.RmsProp(0.01), new Adam(0.01)}) {
      try (MultiLayerNetwork net = new MultiLayerNetwork(smallCnn(u, 1e-4, true));
           DataSet ds = randomData(16, 36, 3, 5)) {
        net.init();
        double first = net.score(ds);
        for (int i = 0; i < 60; ++i) {
          net.fit(ds);
        }
        double last = net.score(ds);
        assertTrue(last < 0.7 * first, u + ": loss " + first + " -> " + last);
        assertEquals(60, net.getIterationCount());
      }
    }
  }

  /** As ND4J's updaters: AdaGrad's and RMSProp's squared sums start at epsilon, the others' state at 0. */
  @Test
  void updaterStateStartsAsInNd4j() {
    Object[][] cases = {{new org.ndrt.nn.updater.AdaGrad(0.05, 1e-6), 1e-6f},
        {new org.ndrt.nn.updater.RmsProp(0.01, 0.95, 1e-8), 1e-8f}, {new Adam(0.01), 0f},
        {new Nesterovs(0.05, 0.9), 0f}};
    for (Object[] c : cases) {
      try (MultiLayerNetwork net = new MultiLayerNetwork(smallCnn((Updater) c[0], 1e-4, true))) {
        net.init();
        float[] st = net.updaterState().toFloatArray();
        assertTrue(st.length > 0);
        for (float v : st) {
          assertEquals((float) c[1], v, 0f, c[0] + ": initial state");
        }
      }
    }
  }

  @Test
  void weightDecayShrinksWeightsOnly() {
    // Decoupled decay with Adam runs as AdamW; with zero gradients only the decay moves the weights.
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(1).updater(new Sgd(0.1)).weightDecay(0.5)
        .list()
        .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf)) {
      net.init();
      float[] p0 = net.params().toFloatArray();
      // Targets equal to the current output: zero gradient.
      try (Tensor x = Tensor.from(new float[] {1, 2, 3, 4}, 1, 4); Tensor out = net.output(x);
           DataSet ds = new DataSet(x.share(), out.share())) {
        net.fit(ds);
      }
      float[] p1 = net.params().toFloatArray();
      for (int i = 0; i < 8; ++i) {
        assertEquals(p0[i] * (1 - 0.1 * 0.5), p1[i], 1e-6, "weight " + i);
      }
      assertEquals(p0[8], p1[8], 0, "bias 0 is not decayed");
      assertEquals(p0[9], p1[9], 0, "bias 1 is not decayed");
    }
  }

  @Test
  void saveAndLoadGiveTheSameOutputsBitForBit(@TempDir Path dir) throws Exception {
    File f = dir.resolve("model.zip").toFile();
    try (MultiLayerNetwork net = new MultiLayerNetwork(smallCnn(new Nesterovs(0.05, 0.9), 1e-3, true));
         DataSet ds = randomData(8, 36, 3, 9)) {
      net.init();
      for (int i = 0; i < 5; ++i) {
        net.fit(ds);
      }
      net.save(f);
      try (MultiLayerNetwork back = MultiLayerNetwork.load(f);
           Tensor a = net.output(ds.features()); Tensor b = back.output(ds.features())) {
        assertEquals(net.getConfiguration(), back.getConfiguration());
        assertBits(a.toFloatArray(), b.toFloatArray());
        assertBits(net.params().toFloatArray(), back.params().toFloatArray());
        assertBits(net.updaterState().toFloatArray(), back.updaterState().toFloatArray());
        assertEquals(net.getIterationCount(), back.getIterationCount());
      }
    }
    Files.write(dir.resolve("bad.zip"), new byte[] {1, 2, 3});
    assertThrows(java.io.IOException.class, () -> MultiLayerNetwork.load(dir.resolve("bad.zip").toFile()));
  }

  @Test
  void cloneTrainsLikeTheOriginal() {
    try (MultiLayerNetwork net = new MultiLayerNetwork(smallCnn(new Adam(0.01), 1e-3, false));
         DataSet ds = randomData(8, 36, 3, 21)) {
      net.init();
      net.fit(ds);
      try (MultiLayerNetwork c = net.clone()) {
        net.fit(ds);
        c.fit(ds);
        assertBits(net.params().toFloatArray(), c.params().toFloatArray());
      }
    }
  }

  static void assertBits(float[] a, float[] b) {
    assertEquals(a.length, b.length);
    for (int i = 0; i < a.length; ++i) {
      assertEquals(Float.floatToIntBits(a[i]), Float.floatToIntBits(b[i]), "element " + i);
    }
  }

  @Test
  void configurationRoundTripsThroughJson() {
    MultiLayerConfiguration c = smallCnn(new Nesterovs(0.01, 0.9), 5e-4, true);
    String json = c.toJson();
    MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(json);
    assertEquals(c, back);
    assertEquals(json, back.toJson());
    assertTrue(json.contains("\"Nesterovs\"") && json.contains("\"ConvolutionLayer\""), json);
    assertEquals(8, back.layers().get(3 + 1).nOut());
    assertEquals(2 * 2 * 2, back.layers().get(4).nIn(), "dense nIn inferred from the pooled 2x2x2 maps");
    assertThrows(IllegalArgumentException.class, () -> MultiLayerConfiguration.fromJson(json.replace("ndrt-multilayer/1", "x")));
    assertThrows(IllegalArgumentException.class, () -> MultiLayerConfiguration.fromJson("{\"format\": "));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MultiLayerConfiguration.fromJson(json.replaceFirst("\"kernel\": \\[3, 3\\]", "\"kernel\": [3, 3, 3]")));
    assertTrue(e.getMessage().contains("\"kernel\" needs 2 values"), e.getMessage());
  }

  @Test
  void wrongConfigurationsFailAtBuildTime() {
    // Mismatched nIn: the conv says 3 channels, the input has 1.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder()
        .list()
        .layer(new ConvolutionLayer.Builder(5, 5).nIn(3).nOut(4).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1)).build());
    assertTrue(e.getMessage().contains("nIn is 3"), e.getMessage());
    // A dense layer's nIn against the one before.
    e = assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder()
        .list()
        .layer(new DenseLayer.Builder().nIn(10).nOut(5).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(6).nOut(1).activation(Activation.IDENTITY).build())
        .build());
    assertTrue(e.getMessage().contains("nIn is 6 but the layer before gives 5"), e.getMessage());
    // No input type for a convolution.
    e = assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder()
        .list()
        .layer(new ConvolutionLayer.Builder(5, 5).nIn(1).nOut(4).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).build())
        .build());
    assertTrue(e.getMessage().contains("setInputType"), e.getMessage());
    // A kernel larger than the input.
    e = assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder()
        .list()
        .layer(new ConvolutionLayer.Builder(7, 7).nOut(4).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).build())
        .setInputType(InputType.convolutional(5, 5, 1)).build());
    assertTrue(e.getMessage().contains("larger than the padded input"), e.getMessage());
    // Bad kernel sizes are refused by the builder itself.
    assertThrows(IllegalArgumentException.class, () -> new ConvolutionLayer.Builder(0, 5));
    assertThrows(IllegalArgumentException.class, () -> new SubsamplingLayer.Builder().stride(-1, 2));
    // The loss and activation must go together; the output layer must be last.
    assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().list()
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nIn(4).nOut(3).activation(Activation.RELU).build())
        .build());
    assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(3).build()).build());
    assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().list().build());
  }

  @Test
  void badInputIsAClearErrorAndLeaksNothing() {
    long before = Memory.liveHandles();
    try (MultiLayerNetwork net = new MultiLayerNetwork(smallCnn(new Sgd(0.1), 0, false))) {
      try (DataSet ds = randomData(4, 36, 3, 1)) {
        assertThrows(IllegalStateException.class, () -> net.fit(ds), "fit before init");
      }
      net.init();
      try (DataSet wrongFeatures = randomData(4, 35, 3, 1)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.fit(wrongFeatures));
        assertTrue(e.getMessage().contains("features have shape [4, 35]"), e.getMessage());
      }
      try (DataSet wrongLabels = randomData(4, 36, 4, 1)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.fit(wrongLabels));
        assertTrue(e.getMessage().contains("labels have shape [4, 4]"), e.getMessage());
      }
      try (DataSet ok = randomData(4, 36, 3, 1)) {
        net.fit(ok);  // still usable after the errors
        assertTrue(Double.isFinite(net.score()));
      }
    }
    assertEquals(before, Memory.liveHandles(), "the network released every tensor");
  }

  @Test
  void mixedPrecisionTrains() {
    for (DType dt : new DType[] {DType.F16, DType.BF16}) {
      MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
          .seed(3).updater(new Nesterovs(0.05, 0.9)).dataType(dt)
          .list()
          .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.RELU).build())
          .layer(new SubsamplingLayer.Builder().kernelSize(2, 2).stride(2, 2).build())
          .layer(new BatchNormalization.Builder().build())
          .layer(new DenseLayer.Builder().nOut(16).activation(Activation.RELU).build())
          .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).build())
          .setInputType(InputType.convolutionalFlat(6, 6, 1))
          .build();
      try (MultiLayerNetwork net = new MultiLayerNetwork(conf); DataSet ds = randomData(16, 36, 3, 5)) {
        net.init();
        double first = net.score(ds);
        for (int i = 0; i < 80; ++i) {
          net.fit(ds);
        }
        double last = net.score(ds);
        assertTrue(last < 0.6 * first, dt + ": loss " + first + " -> " + last);
        assertNotEquals(0, net.lossScale());
        try (Tensor out = net.output(ds.features())) {
          assertEquals(DType.F32, out.dtype());
          float[] o = out.toFloatArray();
          for (int i = 0; i < 16; ++i) {
            assertEquals(1.0, o[3 * i] + o[3 * i + 1] + o[3 * i + 2], 1e-2, "softmax rows sum to 1");
          }
        }
      }
    }
  }

  @Test
  void overflowSkipsTheStepAndHalvesTheScale() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).updater(new Sgd(0.1))
        .dataType(DType.F16).lossScale(1e30)  // f16 overflows at 65504: the first steps must be skipped
        .list()
        .layer(new DenseLayer.Builder().nIn(36).nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).build())
        .build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf); DataSet ds = randomData(8, 36, 3, 2)) {
      net.init();
      float[] p0 = net.params().toFloatArray();
      net.fit(ds);
      assertEquals(1, net.skippedSteps());
      assertEquals(5e29, net.lossScale(), 1e23);
      assertArrayEquals(p0, net.params().toFloatArray(), "a skipped step leaves the weights alone");
      for (int i = 0; i < 120 && net.skippedSteps() == net.getIterationCount(); ++i) {
        net.fit(ds);
      }
      assertTrue(net.skippedSteps() < net.getIterationCount(), "the scale came down until a step went through");
      // dlogits are at most 1/N per element: a step goes through once scale / 8 fits f16 (65504).
      assertTrue(net.lossScale() < 65504 * 8 * 2, "scale " + net.lossScale());
      assertTrue(!java.util.Arrays.equals(p0, net.params().toFloatArray()), "the step that went through moved the weights");
    }
  }
}
