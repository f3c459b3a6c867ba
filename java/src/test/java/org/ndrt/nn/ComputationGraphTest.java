package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.MultiDataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.graph.ElementWiseVertex;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.graph.SubsetVertex;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.updater.Adam;

/**
 * ComputationGraph as a whole: a chain graph trains bit for bit as the same MultiLayerNetwork; save
 * and load keep training bit for bit; JSON round trips; rnnTimeStep; a two-input model learns; bad
 * graphs and bad data are refused naming the vertex or output.
 */
class ComputationGraphTest {
  @BeforeAll
  static void nchwEverywhere() {
    // Graphs keep images NCHW; the MultiLayerNetwork compared with them must too (this JVM runs this class only).
    System.setProperty("org.ndrt.channelsLast", "false");
    // One thread: the convolution's implementation is chosen by timing per thread count, and with more
    // threads than free cores that count follows the machine's load; bit-for-bit comparisons need one choice.
    org.ndrt.Ndrt.setConfig("cpu.threads", "1");
  }

  static NeuralNetConfiguration.Builder base() {
    return new NeuralNetConfiguration.Builder().seed(7).updater(new Adam(0.01)).l2(1e-4).activation(Activation.RELU);
  }

  static List<Supplier<Layer>> lenetLayers() {
    List<Supplier<Layer>> l = new ArrayList<>();
    l.add(() -> new ConvolutionLayer.Builder(5, 5).nOut(6).build());
    l.add(() -> new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX, new int[] {2, 2}, new int[] {2, 2}).build());
    l.add(() -> new ConvolutionLayer.Builder(3, 3).nOut(8).convolutionMode(ConvMode.Same).build());
    l.add(() -> new BatchNormalization.Builder().build());
    l.add(() -> new DenseLayer.Builder().nOut(20).build());
    l.add(() -> new DropoutLayer.Builder(0.8).build());
    l.add(() -> new OutputLayer.Builder(LossFunction.MCXENT).nOut(4).activation(Activation.SOFTMAX).build());
    return l;
  }

  static ComputationGraphConfiguration chainGraph() {
    ComputationGraphConfiguration.GraphBuilder g = base().graphBuilder().addInputs("in")
        .setInputTypes(InputType.convolutionalFlat(12, 12, 1));
    String prev = "in";
    List<Supplier<Layer>> ls = lenetLayers();
    for (int i = 0; i < ls.size(); ++i) {
      g.addLayer("v" + i, ls.get(i).get(), prev);
      prev = "v" + i;
    }
    return g.setOutputs(prev).build();
  }

  static DataSet batch(Random r, int n) {
    float[] x = new float[n * 144];
    float[] y = new float[n * 4];
    for (int b = 0; b < n; ++b) {
      for (int k = 0; k < 144; ++k) {
        x[b * 144 + k] = r.nextFloat();
      }
      y[b * 4 + r.nextInt(4)] = 1;
    }
    return new DataSet(Tensor.from(x, n, 144), Tensor.from(y, n, 4));
  }

  @Test
  void aChainGraphTrainsBitForBitAsTheSameMultiLayerNetwork() {
    MultiLayerConfiguration.Builder lb = base().list();
    for (Supplier<Layer> s : lenetLayers()) {
      ((NeuralNetConfiguration.ListBuilder) lb).layer(s.get());
    }
    MultiLayerConfiguration mc = lb.setInputType(InputType.convolutionalFlat(12, 12, 1)).build();
    Random r = new Random(5);
    try (MultiLayerNetwork mln = new MultiLayerNetwork(mc); ComputationGraph cg = new ComputationGraph(chainGraph())) {
      mln.init();
      cg.init();
      assertArrayEquals(mln.params().toFloatArray(), cg.params().toFloatArray(), "initial parameters");
      for (int i = 0; i < 4; ++i) {
        try (DataSet ds = batch(r, 16)) {
          mln.fit(ds);
          cg.fit(ds);
          assertEquals(mln.score(), cg.score(), "score of step " + i);
        }
      }
      assertArrayEquals(mln.params().toFloatArray(), cg.params().toFloatArray(), "parameters after 4 steps");
      assertArrayEquals(mln.updaterState().toFloatArray(), cg.updaterState().toFloatArray(), "Adam state");
      try (DataSet ds = batch(r, 9); Tensor a = mln.output(ds.features()); Tensor b = cg.outputSingle(ds.features())) {
        assertArrayEquals(a.toFloatArray(), b.toFloatArray());
        assertEquals(mln.score(ds), cg.score(ds));
      }
    }
  }

  static List<Supplier<Layer>> sequenceLayers() {
    List<Supplier<Layer>> l = new ArrayList<>();
    l.add(() -> new org.ndrt.nn.conf.layers.EmbeddingSequenceLayer.Builder().nOut(4).build());
    l.add(() -> new org.ndrt.nn.conf.layers.Bidirectional(new LSTM.Builder().nOut(3).activation(Activation.TANH).build()));
    l.add(() -> new org.ndrt.nn.conf.layers.GRU.Builder().nOut(4).activation(Activation.TANH).build());
    l.add(() -> new org.ndrt.nn.conf.layers.Convolution1DLayer.Builder(3).convolutionMode(ConvMode.Same).nOut(5).build());
    l.add(() -> new org.ndrt.nn.conf.layers.GlobalPoolingLayer.Builder(org.ndrt.nn.conf.layers.PoolingType.AVG).build());
    l.add(() -> new DenseLayer.Builder().nOut(6).build());
    l.add(() -> new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build());
    return l;
  }

  @Test
  void aChainOfSequenceLayersUnderAMaskTrainsBitForBitAsTheSameMultiLayerNetwork() {
    NeuralNetConfiguration.ListBuilder lb = base().list();
    ComputationGraphConfiguration.GraphBuilder gb = base().graphBuilder().addInputs("ids")
        .setInputTypes(InputType.recurrent(7, 6));
    String prev = "ids";
    for (int i = 0; i < sequenceLayers().size(); ++i) {
      lb.layer(sequenceLayers().get(i).get());
      gb.addLayer("v" + i, sequenceLayers().get(i).get(), prev);
      prev = "v" + i;
    }
    MultiLayerConfiguration mc = lb.setInputType(InputType.recurrent(7, 6)).build();
    Random r = new Random(12);
    try (MultiLayerNetwork mln = new MultiLayerNetwork(mc); ComputationGraph cg = new ComputationGraph(gb.setOutputs(prev).build())) {
      mln.init();
      cg.init();
      assertArrayEquals(mln.params().toFloatArray(), cg.params().toFloatArray(), "initial parameters");
      for (int step = 0; step < 3; ++step) {
        int n = 4;
        float[] ids = new float[n * 6];
        float[] mask = new float[n * 6];
        float[] y = new float[n * 3];
        for (int b = 0; b < n; ++b) {
          int len = 1 + r.nextInt(6);
          for (int t = 0; t < 6; ++t) {
            ids[b * 6 + t] = r.nextInt(7);
            mask[b * 6 + t] = t < len ? 1 : 0;
          }
          y[b * 3 + r.nextInt(3)] = 1;
        }
        try (DataSet ds = new DataSet(Tensor.from(ids, n, 1, 6), Tensor.from(y, n, 3), Tensor.from(mask, n, 6), null)) {
          mln.fit(ds);
          cg.fit(ds);
          assertEquals(mln.score(), cg.score(), "score of step " + step);
          try (Tensor a = mln.output(ds.features(), ds.featuresMask());
               Tensor b = cg.output(new Tensor[] {ds.features()}, new Tensor[] {ds.featuresMask()}, null, false)[0]) {
            assertArrayEquals(a.toFloatArray(), b.toFloatArray(), "outputs after step " + step);
          }
        }
      }
      assertArrayEquals(mln.params().toFloatArray(), cg.params().toFloatArray(), "parameters after 3 steps");
    }
  }

  /** BatchNormalization's own activation (as Deeplearning4j's) trains as batch norm followed by an ActivationLayer. */
  @Test
  void batchNormWithAnActivationEqualsBatchNormThenActivationLayer() {
    Supplier<ComputationGraphConfiguration> fused = () -> base().graphBuilder().addInputs("in")
        .setInputTypes(InputType.convolutionalFlat(12, 12, 1))
        .addLayer("c", new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.IDENTITY).build(), "in")
        .addLayer("bn", new BatchNormalization.Builder().activation(Activation.RELU).build(), "c")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(4).activation(Activation.SOFTMAX).build(), "bn")
        .setOutputs("out").build();
    ComputationGraphConfiguration split = base().graphBuilder().addInputs("in")
        .setInputTypes(InputType.convolutionalFlat(12, 12, 1))
        .addLayer("c", new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.IDENTITY).build(), "in")
        .addLayer("bn", new BatchNormalization.Builder().build(), "c")
        .addLayer("relu", new org.ndrt.nn.conf.layers.ActivationLayer.Builder(Activation.RELU).build(), "bn")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(4).activation(Activation.SOFTMAX).build(), "relu")
        .setOutputs("out").build();
    Random r = new Random(17);
    try (ComputationGraph a = new ComputationGraph(fused.get()); ComputationGraph b = new ComputationGraph(split);
         ComputationGraph identity = new ComputationGraph(chainOf(fused.get()))) {
      a.init();
      b.init();
      identity.init();
      for (int i = 0; i < 3; ++i) {
        try (DataSet ds = batch(r, 8)) {
          a.fit(ds);
          b.fit(ds);
          identity.fit(ds);
          assertEquals(b.score(), a.score(), "step " + i);
          assertNotEquals(identity.score(), a.score(), "the activation is applied");
        }
      }
      assertArrayEquals(b.params().toFloatArray(), a.params().toFloatArray());
    }
  }

  /** {@code c} with the batch norm's activation back to IDENTITY. */
  static ComputationGraphConfiguration chainOf(ComputationGraphConfiguration c) {
    return ComputationGraphConfiguration.fromJson(c.toJson().replace("\"activation\": \"RELU\"", "\"activation\": \"IDENTITY\""));
  }

  @Test
  void saveAndLoadGoOnTrainingBitForBit(@org.junit.jupiter.api.io.TempDir File dir) throws Exception {
    Random r = new Random(9);
    List<DataSet> data = new ArrayList<>();
    for (int i = 0; i < 5; ++i) {
      data.add(batch(r, 8));
    }
    File f = new File(dir, "graph.zip");
    try (ComputationGraph a = new ComputationGraph(chainGraph())) {
      a.init();
      for (int i = 0; i < 3; ++i) {
        a.fit(data.get(i));
      }
      a.save(f);
      try (ComputationGraph b = ComputationGraph.load(f)) {
        assertEquals(a.getConfiguration(), b.getConfiguration());
        assertArrayEquals(a.updaterState().toFloatArray(), b.updaterState().toFloatArray());
        assertEquals(a.getIterationCount(), b.getIterationCount());
        for (int i = 3; i < 5; ++i) {
          a.fit(data.get(i));
          b.fit(data.get(i));
          assertEquals(a.score(), b.score());
        }
        assertArrayEquals(a.params().toFloatArray(), b.params().toFloatArray());
      }
      IllegalStateException noInit = assertThrows(IllegalStateException.class,
          () -> new ComputationGraph(chainGraph()).outputSingle(data.get(0).features()));
      assertTrue(noInit.getMessage().contains("init()"), noInit.getMessage());
    } finally {
      data.forEach(DataSet::close);
    }
    java.io.IOException wrongKind = assertThrows(java.io.IOException.class, () -> MultiLayerNetwork.load(f));
    assertTrue(wrongKind.getMessage().contains("ComputationGraph"), wrongKind.getMessage());
    Files.write(f.toPath(), new byte[] {1, 2, 3});
    assertThrows(java.io.IOException.class, () -> ComputationGraph.load(f));
  }

  static ComputationGraphConfiguration twoInputs() {
    return base().graphBuilder()
        .addInputs("x", "hint")
        .setInputTypes(InputType.feedForward(6), InputType.feedForward(3))
        .addLayer("dx", new DenseLayer.Builder().nOut(16).build(), "x")
        .addLayer("dh", new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build(), "hint")
        .addVertex("m", new MergeVertex(), "dx", "dh")
        .addVertex("part", new SubsetVertex(0, 15), "m")
        .addVertex("res", new ElementWiseVertex(ElementWiseVertex.Op.Add), "part", "dx")
        .addLayer("d2", new DenseLayer.Builder().nOut(12).build(), "res", "dh")
        .addLayer("cls", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(), "d2")
        .addLayer("reg", new OutputLayer.Builder(LossFunction.MSE).nOut(1).activation(Activation.IDENTITY).build(), "d2")
        .setOutputs("cls", "reg")
        .build();
  }

  /** Class = argmax of x[0..2] + hint; target = x[3] - x[4]: needs both inputs. */
  static MultiDataSet twoInputBatch(Random r, int n) {
    float[] x = new float[n * 6];
    float[] h = new float[n * 3];
    float[] c = new float[n * 3];
    float[] t = new float[n];
    for (int b = 0; b < n; ++b) {
      int best = 0;
      double bestV = -1e9;
      for (int k = 0; k < 6; ++k) {
        x[b * 6 + k] = r.nextFloat() * 2 - 1;
      }
      for (int k = 0; k < 3; ++k) {
        h[b * 3 + k] = r.nextFloat() * 2 - 1;
        double v = x[b * 6 + k] + h[b * 3 + k];
        if (v > bestV) {
          bestV = v;
          best = k;
        }
      }
      c[b * 3 + best] = 1;
      t[b] = x[b * 6 + 3] - x[b * 6 + 4];
    }
    return new MultiDataSet(new Tensor[] {Tensor.from(x, n, 6), Tensor.from(h, n, 3)},
        new Tensor[] {Tensor.from(c, n, 3), Tensor.from(t, n, 1)});
  }

  @Test
  void aTwoInputTwoOutputGraphLearnsWhatNeedsBothInputs() {
    Random r = new Random(3);
    try (ComputationGraph g = new ComputationGraph(twoInputs())) {
      g.init();
      double first;
      try (MultiDataSet test = twoInputBatch(new Random(99), 256)) {
        first = g.score(test);
        for (int i = 0; i < 400; ++i) {
          try (MultiDataSet m = twoInputBatch(r, 32)) {
            g.fit(m);
          }
        }
        double last = g.score(test);
        assertTrue(last < first * 0.3, "score " + first + " -> " + last);
        Tensor[] out = g.output(test.features());
        try (Tensor cls = out[0]; Tensor reg = out[1]) {
          assertArrayEquals(new long[] {256, 3}, cls.shape());
          assertArrayEquals(new long[] {256, 1}, reg.shape());
          float[] p = cls.toFloatArray();
          float[] lab = test.labels(0).toFloatArray();
          int right = 0;
          for (int b = 0; b < 256; ++b) {
            int arg = p[b * 3] >= p[b * 3 + 1] && p[b * 3] >= p[b * 3 + 2] ? 0 : p[b * 3 + 1] >= p[b * 3 + 2] ? 1 : 2;
            right += lab[b * 3 + arg] == 1 ? 1 : 0;
          }
          assertTrue(right > 0.85 * 256, right + " of 256 right");
        }
        assertThrows(IllegalStateException.class, () -> g.outputSingle(test.features()));
      }
    }
  }

  /** Mixed precision: the vertices compute in bf16 on the f32 master weights; the graph still learns. */
  @Test
  void aGraphTrainsUnderMixedPrecision() {
    ComputationGraphConfiguration c = new NeuralNetConfiguration.Builder().seed(7).updater(new Adam(0.01))
        .activation(Activation.RELU).dataType(DType.BF16).graphBuilder()
        .addInputs("x", "hint")
        .setInputTypes(InputType.feedForward(6), InputType.feedForward(3))
        .addLayer("dx", new DenseLayer.Builder().nOut(16).build(), "x")
        .addLayer("dh", new DenseLayer.Builder().nOut(16).activation(Activation.TANH).build(), "hint")
        .addVertex("sum", new ElementWiseVertex(ElementWiseVertex.Op.Add), "dx", "dh")
        .addVertex("prod", new ElementWiseVertex(ElementWiseVertex.Op.Product), "dx", "dh")
        .addVertex("m", new MergeVertex(), "sum", "prod")
        .addLayer("bn", new BatchNormalization.Builder().build(), "m")
        .addLayer("cls", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(), "bn")
        .addLayer("reg", new OutputLayer.Builder(LossFunction.MSE).nOut(1).activation(Activation.IDENTITY).build(), "bn")
        .setOutputs("cls", "reg")
        .build();
    Random r = new Random(5);
    try (ComputationGraph g = new ComputationGraph(c); MultiDataSet test = twoInputBatch(new Random(98), 256)) {
      g.init();
      double first = g.score(test);
      for (int i = 0; i < 300; ++i) {
        try (MultiDataSet m = twoInputBatch(r, 32)) {
          g.fit(m);
        }
        assertTrue(Double.isFinite(g.score()), "step " + i + " score " + g.score());
      }
      double last = g.score(test);
      assertTrue(last < first * 0.5, "score " + first + " -> " + last);
      assertEquals(300 - g.skippedSteps(), g.getUpdaterStepCount());
    }
  }

  @Test
  void aConvolutionWithoutBiasHasNoBiasParametersAndRoundTrips() {
    Supplier<ComputationGraphConfiguration> make = () -> base().graphBuilder().addInputs("in")
        .setInputTypes(InputType.convolutional(6, 6, 2))
        .addLayer("c", new ConvolutionLayer.Builder(3, 3).nOut(5).hasBias(false).build(), "in")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(), "c")
        .setOutputs("out").build();
    ComputationGraphConfiguration c = make.get();
    assertTrue(c.toJson().contains("\"hasBias\": false"), c.toJson());
    assertEquals(c.toJson(), ComputationGraphConfiguration.fromJson(c.toJson()).toJson());
    try (ComputationGraph g = new ComputationGraph(c)) {
      g.init();
      assertEquals(5 * 2 * 3 * 3 + (5 * 4 * 4) * 3 + 3, g.numParams());
    }
  }

  @Test
  void jsonRoundTripGivesTheSameGraphAndOutputs() {
    ComputationGraphConfiguration c = twoInputs();
    ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(c.toJson());
    assertEquals(c.toJson(), back.toJson());
    assertEquals(c.topologicalOrder(), back.topologicalOrder());
    try (ComputationGraph a = new ComputationGraph(c); ComputationGraph b = new ComputationGraph(back);
         MultiDataSet m = twoInputBatch(new Random(4), 5)) {
      a.init();
      b.init();
      Tensor[] oa = a.output(m.features());
      Tensor[] ob = b.output(m.features());
      for (int k = 0; k < 2; ++k) {
        assertArrayEquals(oa[k].toFloatArray(), ob[k].toFloatArray());
        oa[k].close();
        ob[k].close();
      }
    }
  }

  @Test
  void rnnTimeStepStepByStepEqualsTheWholeSequence() {
    ComputationGraphConfiguration c = base().graphBuilder().addInputs("s")
        .setInputTypes(InputType.recurrent(3))
        .addLayer("lstm", new LSTM.Builder().nOut(5).activation(Activation.TANH).build(), "s")
        .addLayer("out", new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build(),
            "lstm", "s")
        .setOutputs("out")
        .build();
    float[] xs = new float[2 * 3 * 4];
    Random r = new Random(8);
    for (int i = 0; i < xs.length; ++i) {
      xs[i] = r.nextFloat() - 0.5f;
    }
    try (ComputationGraph g = new ComputationGraph(c); Tensor x = Tensor.from(xs, 2, 3, 4)) {
      g.init();
      float[] whole;
      try (Tensor o = g.outputSingle(x)) {
        whole = o.toFloatArray();  // [2, 2, 4]
      }
      for (int t = 0; t < 4; ++t) {
        try (Tensor step = x.slice(2, t, t + 1).contiguous(); Tensor s2 = step.reshape(2, 3)) {
          Tensor[] o = g.rnnTimeStep(s2);
          float[] v = o[0].toFloatArray();
          o[0].close();
          for (int b = 0; b < 2; ++b) {
            for (int k = 0; k < 2; ++k) {
              assertEquals(whole[(b * 2 + k) * 4 + t], v[b * 2 + k], 1e-5, "step " + t);
            }
          }
        }
      }
    }
  }

  @Test
  void badGraphsAreRefusedNamingTheVertex() {
    Supplier<ComputationGraphConfiguration.GraphBuilder> g = () -> base().graphBuilder().addInputs("in")
        .setInputTypes(InputType.feedForward(4));
    Supplier<Layer> dense5 = () -> new DenseLayer.Builder().nOut(5).build();
    Supplier<Layer> out = () -> new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build();
    assertRefused("cycle", () -> g.get().addLayer("a", dense5.get(), "b").addLayer("b", dense5.get(), "a")
        .addLayer("o", out.get(), "b").setOutputs("o").build(), "cycle", "\"a\"", "\"b\"");
    assertRefused("unknown input", () -> g.get().addLayer("a", dense5.get(), "nope").addLayer("o", out.get(), "a")
        .setOutputs("o").build(), "vertex \"a\"", "\"nope\"");
    assertRefused("unknown output", () -> g.get().addLayer("o", out.get(), "in").setOutputs("x").build(), "output \"x\"");
    assertRefused("shape mismatch", () -> g.get().addLayer("a", dense5.get(), "in")
        .addLayer("b", new DenseLayer.Builder().nOut(6).build(), "in")
        .addVertex("sum", new ElementWiseVertex(ElementWiseVertex.Op.Add), "a", "b")
        .addLayer("o", out.get(), "sum").setOutputs("o").build(), "vertex \"sum\"", "FEED_FORWARD(5)", "FEED_FORWARD(6)");
    assertRefused("image sizes", () -> base().graphBuilder().addInputs("img").setInputTypes(InputType.convolutional(8, 8, 1))
        .addLayer("c1", new ConvolutionLayer.Builder(3, 3).nOut(2).build(), "img")
        .addLayer("c2", new ConvolutionLayer.Builder(3, 3).nOut(2).convolutionMode(ConvMode.Same).build(), "img")
        .addVertex("m", new MergeVertex(), "c1", "c2")
        .addLayer("o", out.get(), "m").setOutputs("o").build(), "vertex \"m\"", "image size");
    assertRefused("subset range", () -> g.get().addLayer("a", dense5.get(), "in").addVertex("s", new SubsetVertex(2, 5), "a")
        .addLayer("o", out.get(), "s").setOutputs("o").build(), "vertex \"s\"", "only 5 features");
    assertRefused("subtract arity", () -> g.get().addLayer("a", dense5.get(), "in")
        .addVertex("d", new ElementWiseVertex(ElementWiseVertex.Op.Subtract), "a", "a", "a")
        .addLayer("o", out.get(), "d").setOutputs("o").build(), "vertex \"d\"", "2 inputs");
    assertRefused("hidden output layer", () -> g.get().addLayer("o1", out.get(), "in").addLayer("o2", out.get(), "in")
        .setOutputs("o2").build(), "vertex \"o1\"", "not one of the graph's outputs");
    assertRefused("output layer used as an input", () -> g.get().addLayer("o1", out.get(), "in")
        .addLayer("d", dense5.get(), "o1").addLayer("o2", out.get(), "d").setOutputs("o1", "o2").build(),
        "vertex \"o1\"", "[d]");
    assertRefused("duplicate name", () -> g.get().addLayer("in", dense5.get(), "in"), "already has", "\"in\"");
    Layer shared = dense5.get();
    assertRefused("shared layer", () -> g.get().addLayer("a", shared, "in").addLayer("b", shared, "a")
        .addLayer("o", out.get(), "b").setOutputs("o").build(), "vertex \"b\"", "\"a\"");
    assertRefused("no outputs", () -> g.get().addLayer("a", dense5.get(), "in").build(), "no outputs");
  }

  @Test
  void moreBadInputIsRefused() {
    Supplier<Layer> out = () -> new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build();
    assertRefused("softmax batch norm on images", () -> base().graphBuilder().addInputs("img")
        .setInputTypes(InputType.convolutional(4, 4, 2))
        .addLayer("bn", new BatchNormalization.Builder().activation(Activation.SOFTMAX).build(), "img")
        .addLayer("o", out.get(), "bn").setOutputs("o").build(), "vertex \"bn\"", "softmax");
    assertRefused("mask input not a graph input", () -> base().graphBuilder().addInputs("s")
        .setInputTypes(InputType.recurrent(3))
        .addLayer("l", new LSTM.Builder().nOut(4).activation(Activation.TANH).build(), "s")
        .addVertex("last", new org.ndrt.nn.conf.graph.LastTimeStepVertex("l"), "l")
        .addLayer("o", out.get(), "last").setOutputs("o").build(), "vertex \"last\"", "\"l\"");
    assertRefused("unknown duplicate reference", () -> base().graphBuilder().addInputs("x")
        .setInputTypes(InputType.feedForward(3))
        .addLayer("d", new DenseLayer.Builder().nOut(4).build(), "x")
        .addVertex("dup", new org.ndrt.nn.conf.graph.DuplicateToTimeSeriesVertex("nope"), "d")
        .addLayer("o", new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build(), "dup")
        .setOutputs("o").build(), "\"nope\"");
    try (Tensor a = Tensor.zeros(DType.F32, 4, 3); Tensor b = Tensor.zeros(DType.F32, 5, 2);
         Tensor m = Tensor.zeros(DType.F32, 4, 6)) {
      assertRefused("different N", () -> new MultiDataSet(new Tensor[] {a}, new Tensor[] {b}), "same first dimension");
      assertRefused("mask count", () -> new MultiDataSet(new Tensor[] {a}, new Tensor[] {a}, new Tensor[] {m, m}, null),
          "2 features masks for 1 arrays");
    }
    ComputationGraphConfiguration unstack = base().graphBuilder().addInputs("x")
        .setInputTypes(InputType.feedForward(3))
        .addLayer("d", new DenseLayer.Builder().nOut(4).build(), "x")
        .addVertex("half", new org.ndrt.nn.conf.graph.UnstackVertex(0, 2), "d")
        .addLayer("o", out.get(), "half").setOutputs("o").build();
    try (ComputationGraph g = new ComputationGraph(unstack); Tensor x = Tensor.zeros(DType.F32, 3, 3)) {
      g.init();
      assertRefused("odd batch for unstack", () -> g.outputSingle(x), "vertex \"half\"", "3 does not split into 2");
      assertRefused("not an iterator of minibatches", () -> g.fitEpoch(List.of(1, 2).iterator(), null),
          "DataSetIterator or a MultiDataSetIterator");
    }
    ComputationGraphConfiguration bf16 = new NeuralNetConfiguration.Builder().dataType(DType.BF16).graphBuilder()
        .addInputs("x", "hint").setInputTypes(InputType.feedForward(6), InputType.feedForward(3))
        .addLayer("cls", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(), "x", "hint")
        .addLayer("reg", new OutputLayer.Builder(LossFunction.MSE).nOut(1).activation(Activation.IDENTITY).build(), "x")
        .setOutputs("cls", "reg").build();
    try (ComputationGraph g = new ComputationGraph(bf16); MultiDataSet m = twoInputBatch(new Random(2), 4)) {
      g.init();
      UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> g.computeGradientAndScore(m));
      assertTrue(e.getMessage().contains("bf16"), e.getMessage());
    }
  }

  static void assertRefused(String what, org.junit.jupiter.api.function.Executable build, String... mentions) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build, what);
    for (String m : mentions) {
      assertTrue(e.getMessage().contains(m), what + ": \"" + m + "\" not in: " + e.getMessage());
    }
  }

  @Test
  void badDataIsRefusedNamingTheInputOrOutput() {
    try (ComputationGraph g = new ComputationGraph(twoInputs());
         MultiDataSet m = twoInputBatch(new Random(1), 4);
         Tensor wrong = Tensor.zeros(DType.F32, 4, 5)) {
      g.init();
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> g.fit(new Tensor[] {m.features(0), wrong}, m.labels(), null, null));
      assertTrue(e.getMessage().contains("input \"hint\""), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> g.fit(m.features(), new Tensor[] {m.labels(0), wrong}, null, null));
      assertTrue(e.getMessage().contains("output \"reg\""), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> g.output(m.features(0)));
      assertTrue(e.getMessage().contains("2 input arrays"), e.getMessage());
      float[] before = g.params().toFloatArray();
      g.fit(m);
      assertNotEquals(before[0], g.params().toFloatArray()[0], "a good minibatch after the refused ones still trains");
    }
  }
}
