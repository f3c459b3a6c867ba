package org.ndrt.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.Ndrt;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.listeners.CollectScoresListener;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.parallel.ParallelWrapper;

/** What StatsListener records, checked against float64 computations of the same quantities. */
class StatsListenerTest {
  static final double LR = 0.5;

  static MultiLayerConfiguration mlp() {
    return new NeuralNetConfiguration.Builder().seed(3).weightInit(WeightInit.XAVIER).updater(new Sgd(LR)).list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.SIGMOID).build())
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build();
  }

  static DataSet data(int n, long seed) {
    return imageData(n, 6, 3, seed);
  }

  /** {@code n} random rows of {@code features} values in [-1, 1), one-hot labels of {@code classes}. */
  static DataSet imageData(int n, int features, int classes, long seed) {
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

  static List<Map<?, ?>> parse(List<String> json) {
    List<Map<?, ?>> out = new ArrayList<>();
    for (String s : json) {
      out.add((Map<?, ?>) Json.parse(s));
    }
    return out;
  }

  static double num(Object o) {
    return o == null ? Double.NaN : ((Number) o).doubleValue();
  }

  /** Keeps a float64 copy of the parameters after every iteration (called before the StatsListener). */
  static final class ParamHistory implements TrainingListener {
    final Map<Long, double[]> after = new HashMap<>();

    @Override
    public void iterationDone(Model model, long iteration, int epoch, double score, int examples) {
      after.put(iteration, model.params().toDoubleArray());
    }
  }

  @Test
  void recordsScoresLayersUpdatesAndActivations() {
    Ndrt.setConfig("cpu.threads", "1");
    InMemoryStatsStorage storage = new InMemoryStatsStorage();
    StatsListener stats = StatsListener.builder(storage).sessionId("mlp").frequency(2).summaryEvery(3).build();
    CollectScoresListener scores = new CollectScoresListener();
    ParamHistory history = new ParamHistory();
    try (MultiLayerNetwork net = new MultiLayerNetwork(mlp()); DataSet ds = data(16, 11)) {
      net.init();
      history.after.put(0L, net.params().toDoubleArray());
      net.setListeners(history, scores, stats);
      for (int i = 0; i < 7; ++i) {
        net.fit(ds);
      }
      assertEquals(List.of("mlp"), storage.sessions());
      Map<?, ?> info = parse(storage.staticInfo("mlp")).get(0);
      assertEquals("MultiLayerNetwork", info.get("model"));
      assertEquals(net.numParams(), num(info.get("numParams")));
      List<?> layers = (List<?>) info.get("layers");
      assertEquals(3, layers.size());
      for (int i = 0; i < 3; ++i) {
        Map<?, ?> l = (Map<?, ?>) layers.get(i);
        assertEquals((double) net.numParams(i), num(l.get("params")));
        assertEquals(net.configuration().layers().get(i).getClass().getSimpleName(), l.get("type"));
      }
      // Iterations 1..7: every 2nd recorded, and every 3rd for the summaries: 2 3 4 6.
      List<Map<?, ?>> ups = parse(storage.updates("mlp", 0, 100));
      long[] iters = ups.stream().mapToLong(m -> (long) num(m.get("iteration"))).toArray();
      assertEquals(List.of(2L, 3L, 4L, 6L), java.util.Arrays.stream(iters).boxed().toList());
      for (Map<?, ?> u : ups) {
        long it = (long) num(u.get("iteration"));
        assertEquals(scores.getScores().get((int) it - 1).score(), num(u.get("score")));
        assertEquals(16.0, num(u.get("examples")));
        assertEquals(LR, num(u.get("learningRate")));
        assertTrue(num(((Map<?, ?>) u.get("memory")).get("inUse")) > 0);
        assertEquals(it % 3 == 0, u.containsKey("layers"), "iteration " + it);
      }
      for (Map<?, ?> u : ups) {
        if (!u.containsKey("layers")) {
          continue;
        }
        long it = (long) num(u.get("iteration"));
        double[] before = history.after.get(it - 1);
        double[] after = history.after.get(it);
        double p2 = 0, d2 = 0;
        for (int k = 0; k < after.length; ++k) {
          p2 += after[k] * after[k];
          d2 += (after[k] - before[k]) * (after[k] - before[k]);
        }
        double sumP2 = 0, sumU2 = 0;
        for (Object o : (List<?>) u.get("layers")) {
          Map<?, ?> l = (Map<?, ?>) o;
          double pn = num(l.get("paramNorm"));
          double un = num(l.get("updateNorm"));
          double gn = num(l.get("gradNorm"));
          sumP2 += pn * pn;
          sumU2 += un * un;
          // Plain SGD without L2: the update is -lr * gradient.
          assertEquals(LR * gn, un, 1e-4 * un + 1e-7, "layer " + l.get("index"));
          assertEquals(un / pn, num(l.get("updateRatio")), 1e-9);
          assertTrue(num(l.get("gradMeanAbs")) > 0 && num(l.get("paramMeanAbs")) > 0);
          assertNotNull(l.get("activationMeanAbs"), "activations recorded at iteration " + it);
        }
        assertEquals(p2, sumP2, 1e-5 * p2);
        assertEquals(d2, sumU2, 1e-3 * d2);
      }
      // Layer 0's activations (sigmoid of the first dense layer) in the forward pass of iteration 6:
      // recomputed in float64 from the parameters before that step.
      Map<?, ?> at6 = ups.get(3);
      double recorded = num(((Map<?, ?>) ((List<?>) at6.get("layers")).get(0)).get("activationMeanAbs"));
      double[] p = history.after.get(5L);
      double[] x = ds.features().toDoubleArray();
      // Layout: the weights first (layer 0's W [6, 5] at 0), biases after all weights.
      long weights = 6 * 5 + 5 * 4 + 4 * 3;
      double sum = 0;
      for (int n = 0; n < 16; ++n) {
        for (int j = 0; j < 5; ++j) {
          double z = p[(int) weights + j];
          for (int k = 0; k < 6; ++k) {
            z += x[n * 6 + k] * p[k * 5 + j];
          }
          sum += 1 / (1 + Math.exp(-z));
        }
      }
      assertEquals(sum / 80, recorded, 1e-5);
    }
  }

  @Test
  void profilesAStepWhenAsked() {
    InMemoryStatsStorage storage = new InMemoryStatsStorage();
    StatsListener stats = StatsListener.builder(storage).sessionId("p").profileEvery(3).summaryEvery(3).build();
    try (MultiLayerNetwork net = new MultiLayerNetwork(mlp()); DataSet ds = data(8, 5)) {
      net.init();
      net.setListeners(stats);
      for (int i = 0; i < 4; ++i) {
        net.fit(ds);
      }
    }
    List<Map<?, ?>> ups = parse(storage.updates("p", 0, 100));
    assertEquals(4, ups.size());
    for (Map<?, ?> u : ups) {
      long it = (long) num(u.get("iteration"));
      assertEquals(it == 3, u.containsKey("profile"), "iteration " + it);
    }
    Map<?, ?> prof = (Map<?, ?>) ups.get(2).get("profile");
    List<?> ops = (List<?>) prof.get("ops");
    assertFalse(ops.isEmpty());
    Map<String, Long> calls = new HashMap<>();
    for (Object o : ops) {
      Map<?, ?> m = (Map<?, ?>) o;
      calls.merge((String) m.get("op"), (long) num(m.get("calls")), Long::sum);
      assertTrue(num(m.get("ms")) >= 0, m.toString());
    }
    // Exactly one step: each of the three dense layers once forward and once backward, the update
    // (one fused sgd op per part of the flat vector).
    assertEquals(3L, calls.get("linear"), calls.toString());
    assertEquals(3L, calls.get("linear_bp"), calls.toString());
    assertTrue(calls.get("sgd") >= 1, calls.toString());
    // The summaries of that iteration are taken outside the profiled step (no activations then).
    assertFalse(calls.containsKey("norm1") || calls.containsKey("norm2"), calls.toString());
    for (Object o : (List<?>) ups.get(2).get("layers")) {
      assertNull(((Map<?, ?>) o).get("activationMeanAbs"));
    }
  }

  @Test
  void worksUnderParallelWrapper() {
    // ParallelWrapper reports once per averaging round (iterations 2 at a time here): the update is
    // the change since the previous call, and the averaged network's (unfilled) gradients are left out.
    InMemoryStatsStorage storage = new InMemoryStatsStorage();
    ParamHistory history = new ParamHistory();
    Random r = new Random(8);
    float[][] rows = new float[96][6];
    int[] labels = new int[96];
    for (int i = 0; i < rows.length; ++i) {
      for (int k = 0; k < 6; ++k) {
        rows[i][k] = r.nextFloat() * 2 - 1;
      }
      labels[i] = r.nextInt(3);
    }
    try (MultiLayerNetwork net = new MultiLayerNetwork(mlp())) {
      net.init();
      ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(2).build();
      pw.setListeners(history, StatsListener.builder(storage).sessionId("pw").summaryEvery(4).build());
      pw.fit(new ListDataSetIterator(rows, labels, 3, 8));
      pw.close();
      List<Map<?, ?>> ups = parse(storage.updates("pw", 0, 100));
      assertTrue(ups.size() >= 2, ups.toString());
      int summaries = 0;
      long previous = -1;
      for (Map<?, ?> u : ups) {
        long it = (long) num(u.get("iteration"));
        if (u.containsKey("layers") && previous >= 0) {
          ++summaries;
          double[] before = history.after.get(previous);
          double[] after = history.after.get(it);
          double d2 = 0;
          for (int k = 0; k < after.length; ++k) {
            d2 += (after[k] - before[k]) * (after[k] - before[k]);
          }
          double sumU2 = 0;
          for (Object o : (List<?>) u.get("layers")) {
            Map<?, ?> l = (Map<?, ?>) o;
            assertNull(l.get("gradNorm"), "no gradients in the averaged network");
            sumU2 += num(l.get("updateNorm")) * num(l.get("updateNorm"));
          }
          assertTrue(d2 > 0);
          assertEquals(d2, sumU2, 1e-3 * d2);
        }
        previous = it;
      }
      assertTrue(summaries >= 1, ups.toString());
    }
  }

  @Test
  void parsesTheProfilerTable() {
    String t = "op                   backend implementation               dtype    calls     total_us    mean_us     min_us     max_us\n"
        + "matmul               cpu    gemm tiled                    f32         4        200.0      50.00      40.00      60.00\n"
        + "add                  cpu    eltwise                       f32         2       1000.0     500.00     400.00     600.00\n";
    List<Map<String, Object>> ops = StatsListener.parseProfile(t);
    assertEquals(2, ops.size());
    assertEquals("add", ops.get(0).get("op"));  // the slowest first
    assertEquals(1.0, ops.get(0).get("ms"));
    assertEquals("gemm tiled", ops.get(1).get("impl"));
    assertEquals(4L, ops.get(1).get("calls"));
  }

  @Test
  void worksOnComputationGraphs() {
    ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder().seed(2).updater(new Sgd(0.1)).graphBuilder()
        .addInputs("in").setInputTypes(InputType.feedForward(6))
        .addLayer("a", new DenseLayer.Builder().nOut(4).activation(Activation.RELU).build(), "in")
        .addLayer("b", new DenseLayer.Builder().nOut(4).activation(Activation.TANH).build(), "in")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(), "a", "b")
        .setOutputs("out").build();
    InMemoryStatsStorage storage = new InMemoryStatsStorage();
    try (ComputationGraph g = new ComputationGraph(conf); DataSet ds = data(8, 9)) {
      g.init();
      g.setListeners(StatsListener.builder(storage).sessionId("g").summaryEvery(2).build());
      for (int i = 0; i < 2; ++i) {
        g.fit(ds);
      }
      Map<?, ?> info = parse(storage.staticInfo("g")).get(0);
      assertEquals("ComputationGraph", info.get("model"));
      List<?> layers = (List<?>) info.get("layers");
      assertEquals(3, layers.size());
      for (int i = 0; i < 3; ++i) {
        assertEquals((double) g.numParams(i), num(((Map<?, ?>) layers.get(i)).get("params")));
        assertEquals(g.configuration().layers().get(i).name(), ((Map<?, ?>) layers.get(i)).get("name"));
      }
      Map<?, ?> u = parse(storage.updates("g", 0, 10)).get(1);
      for (Object o : (List<?>) u.get("layers")) {
        Map<?, ?> l = (Map<?, ?>) o;
        assertTrue(num(l.get("activationMeanAbs")) > 0, l.toString());
        assertEquals(0.1 * num(l.get("gradNorm")), num(l.get("updateNorm")), 1e-4 * num(l.get("updateNorm")) + 1e-7);
      }
      assertNull(parse(storage.updates("g", 0, 10)).get(0).get("layers"));
    }
  }

  @Test
  void fileStorageReopensWhatItWrote(@TempDir Path dir) throws IOException {
    File f = dir.resolve("run.ndrt-stats").toFile();
    List<String> written;
    try (FileStatsStorage s = new FileStatsStorage(f); MultiLayerNetwork net = new MultiLayerNetwork(mlp());
         DataSet ds = data(8, 4)) {
      net.init();
      net.setListeners(StatsListener.builder(s).sessionId("file").summaryEvery(2).build());
      for (int i = 0; i < 3; ++i) {
        net.fit(ds);
      }
      written = s.updates("file", 0, 100);
    }
    assertEquals(3, written.size());
    try (FileStatsStorage again = new FileStatsStorage(f)) {
      assertEquals(List.of("file"), again.sessions());
      assertEquals(written, again.updates("file", 0, 100));
      assertEquals(1, again.staticInfo("file").size());
      Map<String, Object> m = new java.util.LinkedHashMap<>();
      m.put("session", "second");
      m.put("type", StatsRecord.UPDATE);
      again.put(StatsRecord.of(m));
    }
    // A torn last line (a killed writer) is skipped; the records before it stand.
    Files.writeString(f.toPath(), "{\"session\":\"file\",\"ty", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
    try (FileStatsStorage third = new FileStatsStorage(f)) {
      assertEquals(List.of("file", "second"), third.sessions());
      assertEquals(3, third.updateCount("file"));
    }
    File other = dir.resolve("other.bin").toFile();
    Files.writeString(other.toPath(), "not stats\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FileStatsStorage(other));
    assertTrue(e.getMessage().contains("not an ndrt stats file"), e.getMessage());
    File broken = dir.resolve("broken").toFile();
    Files.writeString(broken.toPath(), FileStatsStorage.HEADER + "\n{bad\n{\"session\":\"a\",\"type\":\"update\"}\n");
    assertThrows(IllegalArgumentException.class, () -> new FileStatsStorage(broken));
  }

  @Test
  void optionsAreChecked() {
    InMemoryStatsStorage s = new InMemoryStatsStorage();
    assertThrows(IllegalArgumentException.class, () -> new StatsListener(null));
    assertThrows(IllegalArgumentException.class, () -> new StatsListener(s, 0));
    assertThrows(IllegalArgumentException.class, () -> StatsListener.builder(s).summaryEvery(0).build());
    assertThrows(IllegalArgumentException.class, () -> StatsListener.builder(s).profileEvery(-1).build());
    assertThrows(IllegalArgumentException.class, () -> s.updates("x", -1, 1));
  }
}
