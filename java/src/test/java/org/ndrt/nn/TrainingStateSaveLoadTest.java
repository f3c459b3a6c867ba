package org.ndrt.nn;

import static org.ndrt.nn.MultiLayerNetworkTest.assertBits;
import static org.ndrt.nn.MultiLayerNetworkTest.randomData;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
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
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Adam;

/**
 * The training state outside the parameters (counters, Adam's step, loss scaling, the dropout
 * stream) survives save/load and clone: k iterations, a save and a load, then m more give bit for
 * bit the network trained k + m iterations without the save.
 */
class TrainingStateSaveLoadTest {
  static final int N = 8; // examples per minibatch
  static final int HIDDEN = 16; // the dropout layer's input width: it draws N * HIDDEN numbers per iteration

  /** 6 features -> dense 16 -> dropout 0.5 -> dense 8 -> softmax 3, Adam. */
  static MultiLayerConfiguration conf(DType dtype) {
    return new NeuralNetConfiguration.Builder().seed(11).updater(new Adam(0.01)).l2(1e-4).dataType(dtype).lossScale(1)
        .list()
        .layer(new DenseLayer.Builder().nOut(HIDDEN).activation(Activation.RELU).build())
        .layer(new DropoutLayer.Builder(0.5).build())
        .layer(new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build())
        .setInputType(InputType.feedForward(6))
        .build();
  }

  /** {@code n} iterations alternating between two minibatches, continuing from the network's iteration count. */
  static void train(MultiLayerNetwork net, DataSet[] data, int n) {
    for (int i = 0; i < n; ++i) {
      net.fit(data[(int) (net.getIterationCount() % data.length)]);
    }
  }

  static DataSet[] data() {
    return new DataSet[] {randomData(N, 6, 3, 1), randomData(N, 6, 3, 2)};
  }

  static void close(DataSet[] data) {
    Arrays.stream(data).forEach(DataSet::close);
  }

  static void assertSameTraining(MultiLayerNetwork expected, MultiLayerNetwork actual, DataSet ds) {
    assertBits(expected.params().toFloatArray(), actual.params().toFloatArray());
    assertBits(expected.updaterState().toFloatArray(), actual.updaterState().toFloatArray());
    assertEquals(expected.getIterationCount(), actual.getIterationCount());
    assertEquals(expected.getUpdaterStepCount(), actual.getUpdaterStepCount());
    assertEquals(expected.getEpochCount(), actual.getEpochCount());
    assertArrayEquals(expected.trainingState().randomOffsets, actual.trainingState().randomOffsets);
    try (Tensor a = expected.output(ds.features()); Tensor b = actual.output(ds.features())) {
      assertBits(a.toFloatArray(), b.toFloatArray());
    }
  }

  @Test
  void trainingGoesOnBitForBitAfterSaveAndLoad(@TempDir Path dir) throws IOException {
    File f = dir.resolve("k.zip").toFile();
    DataSet[] data = data();
    try (MultiLayerNetwork straight = new MultiLayerNetwork(conf(DType.F32));
         MultiLayerNetwork first = new MultiLayerNetwork(conf(DType.F32))) {
      straight.init();
      first.init();
      train(straight, data, 4 + 5);
      train(first, data, 4);
      first.save(f);
      try (MultiLayerNetwork loaded = MultiLayerNetwork.load(f)) {
        assertArrayEquals(new long[] {0, 4 * N * HIDDEN, 0, 0}, loaded.trainingState().randomOffsets,
            "the dropout layer's stream is where the saved network's was");
        assertEquals(4, loaded.getUpdaterStepCount());
        train(loaded, data, 5);
        assertSameTraining(straight, loaded, data[0]);
        assertEquals(9 * N * HIDDEN, loaded.trainingState().randomOffsets[1]);
      }
    } finally {
      close(data);
    }
  }

  @Test
  void aZipWithoutTheNewStateStillLoads(@TempDir Path dir) throws IOException {
    File f = dir.resolve("new.zip").toFile();
    File old = dir.resolve("old.zip").toFile();
    DataSet[] data = data();
    try (MultiLayerNetwork straight = new MultiLayerNetwork(conf(DType.F32));
         MultiLayerNetwork first = new MultiLayerNetwork(conf(DType.F32))) {
      straight.init();
      first.init();
      train(straight, data, 4 + 5);
      train(first, data, 4);
      first.save(f);
      // state.json exactly as the writer before this change made it: four keys, no random offsets.
      rewrite(f, old, json -> "{\n  \"epoch\": 0,\n  \"iteration\": 4,\n  \"updaterStep\": 4,\n  \"lossScale\": 1.0\n}\n");
      assertNull(ModelSerializer.read(old).randomOffsets);
      try (MultiLayerNetwork loaded = MultiLayerNetwork.load(old);
           Tensor a = first.output(data[0].features()); Tensor b = loaded.output(data[0].features())) {
        assertBits(a.toFloatArray(), b.toFloatArray());
        assertBits(first.params().toFloatArray(), loaded.params().toFloatArray());
        assertBits(first.updaterState().toFloatArray(), loaded.updaterState().toFloatArray());
        assertEquals(4, loaded.getIterationCount());
        assertEquals(4, loaded.getUpdaterStepCount());
        assertEquals(0, loaded.skippedSteps());
        assertArrayEquals(new long[4], loaded.trainingState().randomOffsets, "the old behaviour: streams from offset 0");
        // So the dropout masks start again, and training goes another way than without the save.
        train(loaded, data, 5);
        assertFalse(Arrays.equals(straight.params().toFloatArray(), loaded.params().toFloatArray()));
      }
    } finally {
      close(data);
    }
  }

  @Test
  void cloneWithDropoutTrainsLikeTheOriginal() {
    DataSet[] data = data();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf(DType.F32))) {
      net.init();
      train(net, data, 3);
      try (MultiLayerNetwork c = net.clone()) {
        train(net, data, 4);
        train(c, data, 4);
        assertSameTraining(net, c, data[1]);
      }
    } finally {
      close(data);
    }
  }

  @Test
  void lossScalingGoesOnAfterSaveAndLoad(@TempDir Path dir) throws IOException {
    // f16 from scale 1: no overflow, so the scale doubles after exactly 1,000 clean steps, at
    // iteration 1,000. Saved at 700, the loaded network must double 300 iterations later too.
    File f = dir.resolve("f16.zip").toFile();
    DataSet[] data = data();
    try (MultiLayerNetwork straight = new MultiLayerNetwork(conf(DType.F16));
         MultiLayerNetwork first = new MultiLayerNetwork(conf(DType.F16))) {
      straight.init();
      first.init();
      train(straight, data, 1400);
      assertEquals(2, straight.lossScale(), "one doubling in 1,400 clean steps");
      assertEquals(0, straight.skippedSteps());
      train(first, data, 700);
      first.save(f);
      try (MultiLayerNetwork loaded = MultiLayerNetwork.load(f)) {
        assertEquals(700, loaded.trainingState().cleanSteps);
        train(loaded, data, 700);
        assertEquals(2, loaded.lossScale());
        assertSameTraining(straight, loaded, data[0]);
      }
    } finally {
      close(data);
    }
  }

  @Test
  void badTrainingStateIsAClearErrorAndLeaksNothing(@TempDir Path dir) throws IOException {
    File f = dir.resolve("good.zip").toFile();
    File bad = dir.resolve("bad.zip").toFile();
    DataSet[] data = data();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf(DType.F32))) {
      net.init();
      train(net, data, 2);
      net.save(f);
    } finally {
      close(data);
    }
    String offsets = "\"randomOffsets\": [0, " + 2 * N * HIDDEN + ", 0, 0]";
    assertTrue(state(f).contains(offsets), state(f));
    long before = Memory.liveHandles();
    String[][] cases = {
        {"[0, 5, 0]", "must be an array of 4 integers >= 0"},
        {"[0, -5, 0, 0]", "must be an array of 4 integers >= 0"},
        {"[0, 5.5, 0, 0]", "must be an array of 4 integers >= 0"},
        {"7", "must be an array of 4 integers >= 0"},
        {"[3, 5, 0, 0]", "draws no random numbers"}, // the first layer is a dense one
    };
    for (String[] c : cases) {
      rewrite(f, bad, json -> json.replace(offsets, "\"randomOffsets\": " + c[0]));
      IOException e = assertThrows(IOException.class, () -> MultiLayerNetwork.load(bad), c[0]);
      assertTrue(e.getMessage().contains(c[1]) && e.getMessage().contains(bad.getName()), e.getMessage());
    }
    rewrite(f, bad, json -> json.replace("\"iteration\": 2", "\"iteration\": -2"));
    IOException e = assertThrows(IOException.class, () -> MultiLayerNetwork.load(bad));
    assertTrue(e.getMessage().contains("\"iteration\" must be >= 0"), e.getMessage());
    assertEquals(before, Memory.liveHandles(), "a load that fails releases what it made");
  }

  /** state.json of a saved model. */
  static String state(File zip) throws IOException {
    return new String(entries(zip).get("state.json"), StandardCharsets.UTF_8);
  }

  /** Copies a saved model, its state.json passed through {@code edit}. */
  static void rewrite(File from, File to, UnaryOperator<String> edit) throws IOException {
    Map<String, byte[]> e = entries(from);
    e.put("state.json", edit.apply(new String(e.get("state.json"), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
    try (ZipOutputStream z = new ZipOutputStream(new FileOutputStream(to))) {
      for (Map.Entry<String, byte[]> x : e.entrySet()) {
        z.putNextEntry(new ZipEntry(x.getKey()));
        z.write(x.getValue());
        z.closeEntry();
      }
    }
  }

  static Map<String, byte[]> entries(File zip) throws IOException {
    Map<String, byte[]> out = new LinkedHashMap<>();
    try (ZipInputStream z = new ZipInputStream(new FileInputStream(zip))) {
      for (ZipEntry e; (e = z.getNextEntry()) != null; ) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        z.transferTo(b);
        out.put(e.getName(), b.toByteArray());
      }
    }
    return out;
  }
}
