package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.graph.PreprocessorVertex;
import org.deeplearning4j.nn.conf.graph.ScaleVertex;
import org.deeplearning4j.nn.conf.graph.SubsetVertex;
import org.deeplearning4j.nn.conf.graph.rnn.DuplicateToTimeSeriesVertex;
import org.deeplearning4j.nn.conf.graph.rnn.LastTimeStepVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.RnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.dataset.api.MultiDataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.Tensor;

/**
 * The drop-in's ComputationGraph against org.ndrt.nn's built directly: same parameters, outputs and
 * scores bit for bit (the adapter adds nothing numerically); save / restore with updater state; JSON
 * round trip; bad graphs refused naming the vertex.
 */
class ComputationGraphDropInTest {
  private static final org.ndrt.nn.conf.Activation RELU = org.ndrt.nn.conf.Activation.RELU;
  private static final org.ndrt.nn.conf.Activation TANH = org.ndrt.nn.conf.Activation.TANH;
  private static final org.ndrt.nn.conf.Activation SOFTMAX = org.ndrt.nn.conf.Activation.SOFTMAX;
  private static final org.ndrt.nn.conf.Activation IDENTITY = org.ndrt.nn.conf.Activation.IDENTITY;

  /** Inputs a [n, 4] and b [n, 3] (dense branches), merged by the output layer's two inputs. */
  private static ComputationGraphConfiguration twoInput(long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).updater(new Adam(0.01)).graphBuilder()
        .addInputs("a", "b")
        .addLayer("da", new DenseLayer.Builder().nOut(8).activation(Activation.RELU).build(), "a")
        .addLayer("db", new DenseLayer.Builder().nOut(6).activation(Activation.TANH).build(), "b")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
            .activation(Activation.SOFTMAX).build(), "da", "db")
        .setOutputs("out").setInputTypes(InputType.feedForward(4), InputType.feedForward(3)).build();
  }

  private static org.ndrt.nn.conf.ComputationGraphConfiguration ndrtTwoInput(long seed) {
    return new org.ndrt.nn.conf.NeuralNetConfiguration.Builder().seed(seed)
        .updater(new org.ndrt.nn.updater.Adam(0.01, 0.9, 0.999, 1e-8)).graphBuilder()
        .addInputs("a", "b")
        .addLayer("da", new org.ndrt.nn.conf.layers.DenseLayer.Builder().nOut(8).activation(RELU).build(), "a")
        .addLayer("db", new org.ndrt.nn.conf.layers.DenseLayer.Builder().nOut(6).activation(TANH).build(), "b")
        .addLayer("out", new org.ndrt.nn.conf.layers.OutputLayer.Builder(org.ndrt.nn.conf.LossFunction.MCXENT).nOut(3)
            .activation(SOFTMAX).build(), "out-merge")
        .addVertex("out-merge", new org.ndrt.nn.conf.graph.MergeVertex(), "da", "db")
        .setOutputs("out").setInputTypes(org.ndrt.nn.conf.InputType.feedForward(4),
            org.ndrt.nn.conf.InputType.feedForward(3)).build();
  }

  /** A residual block: out(0.5 * (in + d2(d1(in)))) with a subset of the block on the side. */
  private static ComputationGraphConfiguration residual(long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).updater(new Adam(0.02)).graphBuilder()
        .addInputs("in")
        .addLayer("d1", new DenseLayer.Builder().nIn(5).nOut(7).activation(Activation.TANH).build(), "in")
        .addLayer("d2", new DenseLayer.Builder().nOut(5).activation(Activation.IDENTITY).build(), "d1")
        .addVertex("res", new ElementWiseVertex(ElementWiseVertex.Op.Add), "in", "d2")
        .addVertex("half", new ScaleVertex(0.5), "res")
        .addVertex("side", new SubsetVertex(0, 2), "d1")
        .addVertex("cat", new MergeVertex(), "half", "side")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2)
            .activation(Activation.IDENTITY).build(), "cat")
        .setOutputs("out").build();
  }

  private static org.ndrt.nn.conf.ComputationGraphConfiguration ndrtResidual(long seed) {
    return new org.ndrt.nn.conf.NeuralNetConfiguration.Builder().seed(seed)
        .updater(new org.ndrt.nn.updater.Adam(0.02, 0.9, 0.999, 1e-8)).graphBuilder()
        .addInputs("in")
        .addLayer("d1", new org.ndrt.nn.conf.layers.DenseLayer.Builder().nIn(5).nOut(7).activation(TANH).build(), "in")
        .addLayer("d2", new org.ndrt.nn.conf.layers.DenseLayer.Builder().nOut(5).activation(IDENTITY).build(), "d1")
        .addVertex("res", new org.ndrt.nn.conf.graph.ElementWiseVertex(org.ndrt.nn.conf.graph.ElementWiseVertex.Op.Add),
            "in", "d2")
        .addVertex("half", new org.ndrt.nn.conf.graph.ScaleVertex(0.5), "res")
        .addVertex("side", new org.ndrt.nn.conf.graph.SubsetVertex(0, 2), "d1")
        .addVertex("cat", new org.ndrt.nn.conf.graph.MergeVertex(), "half", "side")
        .addLayer("out", new org.ndrt.nn.conf.layers.OutputLayer.Builder(org.ndrt.nn.conf.LossFunction.MSE).nOut(2)
            .activation(IDENTITY).build(), "cat")
        .setOutputs("out").build();
  }

  private static INDArray rand(long seed, long... shape) {
    Nd4j.getRandom().setSeed(seed);
    return Nd4j.rand(shape).subi(0.5);
  }

  /** One-hot rows [n, k] from a seeded rule. */
  private static INDArray oneHot(int n, int k, long seed) {
    java.util.Random r = new java.util.Random(seed);
    INDArray y = Nd4j.zeros(n, k);
    for (int i = 0; i < n; ++i) {
      y.putScalar(i, r.nextInt(k), 1.0);
    }
    return y;
  }

  private static MultiDataSet twoInputBatch(long seed) {
    return new MultiDataSet(new INDArray[] {rand(seed, 16, 4), rand(seed + 1000, 16, 3)},
        new INDArray[] {oneHot(16, 3, seed)});
  }

  private static org.ndrt.data.MultiDataSet ndrt(MultiDataSet m) {
    return Tensors.multiDataSet(m);
  }

  private static float[] floats(org.ndrt.Tensor t) {
    return t.toFloatArray();
  }

  @Test
  void twoInputGraphSameAsOrgNdrtNn() {
    ComputationGraphConfiguration c = twoInput(42);
    assertTrue(c.getVertices().containsKey("out-merge"), c.getVertices().keySet().toString());
    // nIn set from the input types at build, as Deeplearning4j's build() does.
    assertEquals(4, ((DenseLayer) ((LayerVertex) c.getVertices().get("da")).getLayerConf().getLayer()).getNIn());
    assertEquals(14, ((OutputLayer) ((LayerVertex) c.getVertices().get("out")).getLayerConf().getLayer()).getNIn());
    try (ComputationGraph a = new ComputationGraph(c);
        org.ndrt.nn.ComputationGraph b = new org.ndrt.nn.ComputationGraph(ndrtTwoInput(42))) {
      a.init();
      b.init();
      assertArrayEquals(floats(b.params()), a.params().toFloatVector());
      for (int step = 0; step < 8; ++step) {
        MultiDataSet m = twoInputBatch(step);
        a.fit(m);
        try (org.ndrt.data.MultiDataSet d = ndrt(m)) {
          b.fit(d);
        }
        assertEquals(b.score(), a.score(), 0.0);
      }
      // An epoch over an ND4J MultiDataSetIterator: the same minibatches fitted directly.
      List<MultiDataSet> batches = Arrays.asList(twoInputBatch(20), twoInputBatch(21), twoInputBatch(22));
      a.fit(new ListMdsIterator(batches));
      for (MultiDataSet m : batches) {
        try (org.ndrt.data.MultiDataSet d = ndrt(m)) {
          b.fit(d);
        }
      }
      assertArrayEquals(floats(b.params()), a.params().toFloatVector());
      MultiDataSet t = twoInputBatch(99);
      INDArray[] out = a.output(t.getFeatures());
      assertEquals(1, out.length);
      try (Tensor x0 = Tensors.in(t.getFeatures(0)); Tensor x1 = Tensors.in(t.getFeatures(1));
          Tensor o = b.outputSingle(x0, x1); org.ndrt.data.MultiDataSet d = ndrt(t)) {
        assertArrayEquals(o.toFloatArray(), out[0].data().asFloat());
        assertArrayEquals(o.toFloatArray(), a.outputSingle(t.getFeatures()).data().asFloat());
        assertEquals(b.score(d), a.score(t), 0.0);
      }
      assertEquals(b.numParams(), a.numParams());
      Evaluation e = a.evaluate(new ListMdsIterator(batches));
      assertEquals(48, e.getNumRowCounter());
      assertEquals(b.evaluate(Tensors.iterator(new ListMdsIterator(batches))).accuracy(), e.accuracy(), 1e-12);
      assertEquals(11, a.getIterationCount());
      assertEquals(1, a.getEpochCount());
    }
  }

  @Test
  void multiDataSetCrossesWithoutCopies() {
    MultiDataSet m = twoInputBatch(3);
    m.setLabelsMaskArray(new INDArray[] {Nd4j.ones(16, 1)});
    try (org.ndrt.data.MultiDataSet d = Tensors.multiDataSet(m)) {
      m.getFeatures(1).putScalar(2, 1, 7.0);
      m.getLabels(0).putScalar(5, 0, -3.0);
      assertEquals(7f, d.features(1).toFloatArray()[2 * 3 + 1]);
      assertEquals(-3f, d.labels(0).toFloatArray()[5 * 3]);
      assertEquals(2, d.numFeatureArrays());
      assertEquals(null, d.featuresMasks()[0]);
      assertArrayEquals(new long[] {16, 1}, d.labelsMasks()[0].shape());
    }
    assertEquals(7.0, m.getFeatures(1).getDouble(2, 1), 0.0);  // closing the handles leaves the arrays alone
  }

  @Test
  void residualGraphSameAsOrgNdrtNn() {
    try (ComputationGraph a = new ComputationGraph(residual(7));
        org.ndrt.nn.ComputationGraph b = new org.ndrt.nn.ComputationGraph(ndrtResidual(7))) {
      a.init();
      b.init();
      assertArrayEquals(floats(b.params()), a.params().toFloatVector());
      List<DataSet> batches = new ArrayList<>();
      for (int i = 0; i < 6; ++i) {
        batches.add(new DataSet(rand(i, 10, 5), rand(i + 50, 10, 2)));
      }
      a.fit(new ListDataSetIterator<>(batches, 1), 2);  // two epochs of the six minibatches
      for (int e = 0; e < 2; ++e) {
        for (DataSet ds : batches) {
          try (org.ndrt.data.DataSet d = Tensors.dataSet(ds)) {
            b.fit(d);
          }
        }
      }
      assertEquals(b.score(), a.score(), 0.0);
      assertArrayEquals(floats(b.params()), a.params().toFloatVector());
      DataSet t = new DataSet(rand(77, 9, 5), rand(78, 9, 2));
      a.fit(t);
      try (org.ndrt.data.DataSet d = Tensors.dataSet(t)) {
        b.fit(d);
        assertEquals(b.score(), a.score(), 0.0);
        assertEquals(b.score(d), a.score(t), 0.0);
        try (Tensor o = b.outputSingle(d.features())) {
          assertArrayEquals(o.toFloatArray(), a.outputSingle(t.getFeatures()).data().asFloat());
        }
      }
      assertTrue(a.summary().contains("ElementWiseVertex"), a.summary());
      assertEquals(3, a.getLayers().length);
      assertEquals("d2", a.getLayer("d2").conf().getLayer().getLayerName());
      assertEquals(1, a.getLayer("d2").getIndex());
    }
  }

  @Test
  void evaluateAndListeners() {
    List<DataSet> batches = new ArrayList<>();
    for (int i = 0; i < 4; ++i) {
      batches.add(new DataSet(rand(i, 12, 4), oneHot(12, 3, i)));
    }
    ComputationGraphConfiguration c = new NeuralNetConfiguration.Builder().seed(1).updater(new Adam(0.05)).graphBuilder()
        .addInputs("x").addLayer("h", new DenseLayer.Builder().nIn(4).nOut(6).activation(Activation.RELU).build(), "x")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
            .activation(Activation.SOFTMAX).build(), "h").setOutputs("out").build();
    try (ComputationGraph g = new ComputationGraph(c)) {
      g.init();
      List<Model> seen = new ArrayList<>();
      int[] epochs = new int[1];
      g.setListeners(new BaseTrainingListener() {
        @Override
        public void iterationDone(Model model, int iteration, int epoch) {
          seen.add(model);
        }

        @Override
        public void onEpochEnd(Model model) {
          ++epochs[0];
        }
      });
      g.fit(new ListDataSetIterator<>(batches, 1), 3);  // one DataSet per minibatch
      assertEquals(12, seen.size());
      assertTrue(seen.stream().allMatch(m -> m == g));
      assertEquals(3, epochs[0]);
      Evaluation e = g.evaluate(new ListDataSetIterator<>(batches, 1));
      org.ndrt.eval.Evaluation direct;
      List<org.ndrt.data.DataSet> nb = new ArrayList<>();
      for (DataSet ds : batches) {
        nb.add(Tensors.dataSet(ds));
      }
      List<Iterator<org.ndrt.data.DataSet>> it = new ArrayList<>(List.of(nb.iterator()));
      direct = g.ndrtGraph().evaluate(new org.ndrt.data.DataSetIterator() {
        @Override
        public boolean hasNext() {
          return it.get(0).hasNext();
        }

        @Override
        public org.ndrt.data.DataSet next() {
          org.ndrt.data.DataSet d = it.get(0).next();
          return new org.ndrt.data.DataSet(d.features().share(), d.labels().share());
        }

        @Override
        public void reset() {
          it.set(0, nb.iterator());
        }

        @Override
        public int batchSize() {
          return 12;
        }

        @Override
        public long numExamples() {
          return 48;
        }

        @Override
        public int totalOutcomes() {
          return 3;
        }
      });
      assertEquals(direct.accuracy(), e.accuracy(), 1e-12);
      assertEquals(48, e.getNumRowCounter(), 0.0);
      nb.forEach(org.ndrt.data.DataSet::close);
    }
  }

  @Test
  void saveRestoreWithUpdaterBitForBit(@TempDir Path dir) throws Exception {
    File f = dir.resolve("graph.zip").toFile();
    try (ComputationGraph a = new ComputationGraph(twoInput(5))) {
      a.init();
      for (int s = 0; s < 4; ++s) {
        a.fit(twoInputBatch(s));
      }
      ModelSerializer.writeModel(a, f, true);
      try (ComputationGraph b = ModelSerializer.restoreComputationGraph(f, true);
          ComputationGraph z = ModelSerializer.restoreComputationGraph(f.getPath(), false)) {
        assertEquals(a.getConfiguration(), b.getConfiguration());
        assertArrayEquals(a.params().toFloatVector(), b.params().toFloatVector());
        assertArrayEquals(a.output(twoInputBatch(50).getFeatures())[0].data().asFloat(),
            b.output(twoInputBatch(50).getFeatures())[0].data().asFloat());
        for (int s = 4; s < 8; ++s) {
          a.fit(twoInputBatch(s));
          b.fit(twoInputBatch(s));
          z.fit(twoInputBatch(s));
          assertEquals(a.score(), b.score(), 0.0);
        }
        assertArrayEquals(a.params().toFloatVector(), b.params().toFloatVector());
        // Adam's moments restored matter: starting them from zero trains on differently.
        assertFalse(Arrays.equals(a.params().toFloatVector(), z.params().toFloatVector()));
      }
      try (ComputationGraph c = a.clone()) {
        a.fit(twoInputBatch(9));
        c.fit(twoInputBatch(9));
        assertArrayEquals(a.params().toFloatVector(), c.params().toFloatVector());
      }
    }
  }

  @Test
  void jsonRoundTrip() {
    for (ComputationGraphConfiguration c : new ComputationGraphConfiguration[] {twoInput(3), residual(3)}) {
      String json = c.toJson();
      ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(json);
      assertEquals(json, back.toJson());
      assertEquals(c.toNdrt().toJson(), back.toNdrt().toJson());
      assertTrue(json.contains("\"org.deeplearning4j.nn.conf.graph.LayerVertex\""), json);
      try (ComputationGraph x = new ComputationGraph(c); ComputationGraph y = new ComputationGraph(back)) {
        x.init();
        y.init();
        assertArrayEquals(x.params().toFloatVector(), y.params().toFloatVector());
      }
    }
    // Kahn's order over the vertices as added (ties in that order), as org.ndrt.nn computes them.
    assertEquals(Arrays.asList("in", "d1", "d2", "side", "res", "half", "cat", "out"),
        residual(1).getTopologicalOrderStr());
  }

  private static NeuralNetConfiguration.Builder global() {
    return new NeuralNetConfiguration.Builder().seed(1).updater(new Adam(0.01));
  }

  private static DenseLayer dense(int nOut) {
    return new DenseLayer.Builder().nOut(nOut).activation(Activation.TANH).build();
  }

  private static OutputLayer out(int nOut) {
    return new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(nOut).activation(Activation.IDENTITY).build();
  }

  private static void refused(String vertex, Runnable build) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
    assertTrue(e.getMessage().contains("\"" + vertex + "\""), e.getMessage());
  }

  @Test
  void badGraphsNameTheVertex() {
    InputType ff4 = InputType.feedForward(4);
    refused("d1", () -> global().graphBuilder().addInputs("x")
        .addLayer("d1", dense(4), "d2").addLayer("d2", dense(4), "d1").addLayer("o", out(2), "d2")
        .setOutputs("o").setInputTypes(ff4).build());
    refused("d", () -> global().graphBuilder().addInputs("x").addLayer("d", dense(4), "nope")
        .addLayer("o", out(2), "d").setOutputs("o").setInputTypes(ff4).build());
    refused("sub", () -> global().graphBuilder().addInputs("x").addLayer("a", dense(4), "x").addLayer("b", dense(4), "x")
        .addLayer("c", dense(4), "x").addVertex("sub", new ElementWiseVertex(ElementWiseVertex.Op.Subtract), "a", "b", "c")
        .addLayer("o", out(2), "sub").setOutputs("o").setInputTypes(ff4).build());
    refused("add", () -> global().graphBuilder().addInputs("x").addLayer("a", dense(4), "x").addLayer("b", dense(5), "x")
        .addVertex("add", new ElementWiseVertex(ElementWiseVertex.Op.Add), "a", "b")
        .addLayer("o", out(2), "add").setOutputs("o").setInputTypes(ff4).build());
    refused("s", () -> global().graphBuilder().addInputs("x").addLayer("a", dense(4), "x")
        .addVertex("s", new SubsetVertex(2, 9), "a").addLayer("o", out(2), "s").setOutputs("o").setInputTypes(ff4).build());
    refused("nowhere", () -> global().graphBuilder().addInputs("x").addLayer("o", out(2), "x").setOutputs("nowhere")
        .setInputTypes(ff4).build());
  }

  @Test
  void missingFeaturesRefusedByName() {
    ComputationGraphConfiguration rnnPre = global().graphBuilder().addInputs("x")
        .addVertex("p", new PreprocessorVertex(new RnnToFeedForwardPreProcessor()), "x")
        .addLayer("o", out(2), "p").setOutputs("o").setInputTypes(InputType.recurrent(4)).build();
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> new ComputationGraph(rnnPre).init());
    assertTrue(e.getMessage().contains("RnnToFeedForwardPreProcessor") && e.getMessage().contains("\"p\""), e.getMessage());
    ComputationGraphConfiguration tbptt = global().graphBuilder().addInputs("x").addLayer("o", out(2), "x")
        .setOutputs("o").setInputTypes(InputType.feedForward(3)).backpropType(BackpropType.TruncatedBPTT).build();
    e = assertThrows(UnsupportedOperationException.class, () -> new ComputationGraph(tbptt).init());
    assertTrue(e.getMessage().contains("TruncatedBPTT"), e.getMessage());
  }

  @Test
  void preprocessorsBecomeOrgNdrtVertices() {
    ComputationGraphConfiguration c = global().graphBuilder().addInputs("img")
        .addVertex("toCnn", new PreprocessorVertex(new FeedForwardToCnnPreProcessor(6, 6, 1)), "img")
        .addLayer("conv", new ConvolutionLayer.Builder(3, 3).nOut(2).activation(Activation.RELU).build(), "toCnn")
        .addLayer("d", dense(4), new CnnToFeedForwardPreProcessor(4, 4, 2), "conv")
        .addLayer("o", out(2), "d").setOutputs("o").setInputTypes(InputType.feedForward(36)).build();
    org.ndrt.nn.conf.ComputationGraphConfiguration n = c.toNdrt();
    assertEquals(org.ndrt.nn.conf.graph.PreprocessorVertex.Kind.FEED_FORWARD_TO_CNN,
        ((org.ndrt.nn.conf.graph.PreprocessorVertex) n.node("toCnn").vertex).kind());
    assertEquals(org.ndrt.nn.conf.graph.PreprocessorVertex.Kind.CNN_TO_FEED_FORWARD,
        ((org.ndrt.nn.conf.graph.PreprocessorVertex) n.node("d-preProcessor").vertex).kind());
    assertEquals(List.of("d-preProcessor"), n.node("d").inputs);
    assertEquals(32, n.node("d").layer.nIn());
    assertEquals(c.toJson(), ComputationGraphConfiguration.fromJson(c.toJson()).toJson());
    try (ComputationGraph g = new ComputationGraph(c)) {
      g.init();
      DataSet ds = new DataSet(rand(3, 8, 36), rand(4, 8, 2));
      g.fit(ds);
      double first = g.score();
      for (int i = 0; i < 30; ++i) {
        g.fit(ds);
      }
      assertTrue(g.score() < first, first + " -> " + g.score());
      assertArrayEquals(new long[] {8, 2}, g.outputSingle(ds.getFeatures()).shape());
    }
  }

  @Test
  void recurrentVerticesAndRnnTimeStep() {
    ComputationGraphConfiguration c = global().graphBuilder().addInputs("seq")
        .addLayer("lstm", new LSTM.Builder().nOut(5).activation(Activation.TANH).build(), "seq")
        .addVertex("last", new LastTimeStepVertex("seq"), "lstm")
        .addLayer("summary", dense(3), "last")
        .addVertex("dup", new DuplicateToTimeSeriesVertex("seq"), "summary")
        .addLayer("o", new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
            .build(), "lstm", "dup")
        .setOutputs("o").setInputTypes(InputType.recurrent(3)).build();
    assertEquals(8, ((RnnOutputLayer) ((LayerVertex) c.getVertices().get("o")).getLayerConf().getLayer()).getNIn());
    ComputationGraphConfiguration plain = global().graphBuilder().addInputs("seq")
        .addLayer("lstm", new LSTM.Builder().nOut(5).activation(Activation.TANH).build(), "seq")
        .addLayer("o", new RnnOutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
            .build(), "lstm")
        .setOutputs("o").setInputTypes(InputType.recurrent(3)).build();
    try (ComputationGraph g = new ComputationGraph(c); ComputationGraph p = new ComputationGraph(plain)) {
      g.init();
      p.init();
      INDArray x = rand(9, 4, 3, 6);
      g.fit(new DataSet(x, rand(10, 4, 2, 6)));
      assertArrayEquals(new long[] {4, 2, 6}, g.outputSingle(x).shape());
      // rnnTimeStep one step at a time gives the whole sequence's outputs (the state carried between calls).
      INDArray whole = p.outputSingle(x);
      for (int t = 0; t < 6; ++t) {
        INDArray step = p.rnnTimeStep(x.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.point(t)).dup())[0];
        assertArrayEquals(whole.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.point(t)).dup().data().asFloat(),
            step.data().asFloat(), 1e-6f);
      }
      p.rnnClearPreviousState();
      INDArray again = p.rnnTimeStep(x.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.point(0)).dup())[0];
      assertArrayEquals(whole.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.point(0)).dup().data().asFloat(),
          again.data().asFloat(), 1e-6f);
    }
  }

  @Test
  void dropOutIsADropoutVertexBeforeTheLayer() {
    // dropOut(0.75) keeps 3/4 of each layer's input: org.ndrt.nn's DropoutLayer(0.25) before each layer.
    ComputationGraphConfiguration c = new NeuralNetConfiguration.Builder().seed(11).updater(new Adam(0.01)).dropOut(0.75)
        .graphBuilder().addInputs("x")
        .addLayer("h", new DenseLayer.Builder().nIn(4).nOut(6).activation(Activation.RELU).build(), "x")
        .addLayer("o", new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
            .build(), "h")
        .setOutputs("o").build();  // no input types: h's nIn implies x's, behind its dropout
    org.ndrt.nn.conf.ComputationGraphConfiguration d = new org.ndrt.nn.conf.NeuralNetConfiguration.Builder().seed(11)
        .updater(new org.ndrt.nn.updater.Adam(0.01, 0.9, 0.999, 1e-8)).graphBuilder().addInputs("x")
        .addLayer("h-dropout", new org.ndrt.nn.conf.layers.DropoutLayer.Builder(0.25).build(), "x")
        .addLayer("h", new org.ndrt.nn.conf.layers.DenseLayer.Builder().nIn(4).nOut(6).activation(RELU).build(), "h-dropout")
        .addLayer("o-dropout", new org.ndrt.nn.conf.layers.DropoutLayer.Builder(0.25).build(), "h")
        .addLayer("o", new org.ndrt.nn.conf.layers.OutputLayer.Builder(org.ndrt.nn.conf.LossFunction.MSE).nOut(2)
            .activation(IDENTITY).build(), "o-dropout")
        .setOutputs("o").setInputTypes(org.ndrt.nn.conf.InputType.feedForward(4)).build();
    try (ComputationGraph a = new ComputationGraph(c); org.ndrt.nn.ComputationGraph b = new org.ndrt.nn.ComputationGraph(d)) {
      a.init();
      b.init();
      for (int i = 0; i < 5; ++i) {
        DataSet ds = new DataSet(rand(i, 8, 4), rand(i + 9, 8, 2));
        a.fit(ds);
        try (org.ndrt.data.DataSet n = Tensors.dataSet(ds)) {
          b.fit(n);
        }
        assertEquals(b.score(), a.score(), 0.0);
      }
      assertArrayEquals(floats(b.params()), a.params().toFloatVector());
    }
  }

  /** An ND4J MultiDataSetIterator over a list (the test's own: the drop-in has no list iterator of these). */
  /** The MultiDataSets of a list, in order (also GraphExampleApiTest's). */
  static final class ListMdsIterator implements MultiDataSetIterator {
    private final List<? extends org.nd4j.linalg.dataset.api.MultiDataSet> list;
    private int next;

    ListMdsIterator(List<? extends org.nd4j.linalg.dataset.api.MultiDataSet> list) {
      this.list = list;
    }

    @Override
    public org.nd4j.linalg.dataset.api.MultiDataSet next(int num) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void setPreProcessor(MultiDataSetPreProcessor p) {}

    @Override
    public MultiDataSetPreProcessor getPreProcessor() {
      return null;
    }

    @Override
    public boolean resetSupported() {
      return true;
    }

    @Override
    public boolean asyncSupported() {
      return false;
    }

    @Override
    public void reset() {
      next = 0;
    }

    @Override
    public boolean hasNext() {
      return next < list.size();
    }

    @Override
    public org.nd4j.linalg.dataset.api.MultiDataSet next() {
      return list.get(next++);
    }
  }
}
