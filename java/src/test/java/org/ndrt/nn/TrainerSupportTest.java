package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ndrt.nn.MultiLayerNetworkTest.randomData;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.MultiLayerConfiguration;

/**
 * What org.ndrt.distributed relies on, without MPI: the backward hook sees each layer's final
 * gradients in backward order and changes nothing, the gradient ranges tile the gradient vector,
 * the training state round-trips as numbers, and checkpoint zips (a model zip plus entries) load
 * back into a network.
 */
class TrainerSupportTest {
  /** 6 features -> dense 16 -> dropout 0.5 -> dense 8 -> softmax 3, Adam (TrainingStateSaveLoadTest's). */
  static MultiLayerConfiguration conf() {
    return TrainingStateSaveLoadTest.conf(DType.F32);
  }

  static MultiLayerNetwork net() {
    MultiLayerNetwork n = new MultiLayerNetwork(conf());
    n.init();
    return n;
  }

  @Test
  void gradientRangesTileTheGradientVector() {
    try (MultiLayerNetwork n = net()) {
      long[][] ranges = TrainerSupport.gradientRanges(n);
      assertEquals(4, ranges.length);
      assertEquals(0, ranges[1].length, "the dropout layer has no parameters");
      long total = TrainerSupport.gradients(n).numel();
      boolean[] covered = new boolean[(int) total];
      for (long[] r : ranges) {
        assertEquals(0, r.length % 2);
        for (int k = 0; k < r.length; k += 2) {
          for (long i = r[k]; i < r[k] + r[k + 1]; ++i) {
            assertFalse(covered[(int) i], "element " + i + " in two ranges");
            covered[(int) i] = true;
          }
        }
      }
      for (int i = 0; i < covered.length; ++i) {
        assertTrue(covered[i], "element " + i + " in no range");
      }
    }
  }

  @Test
  void theBackwardHookSeesFinalGradientsInBackwardOrderAndChangesNothing() {
    DataSet ds = randomData(8, 6, 3, 5);
    try (MultiLayerNetwork hooked = net(); MultiLayerNetwork plain = net()) {
      long[][] ranges = TrainerSupport.gradientRanges(hooked);
      Tensor grads = TrainerSupport.gradients(hooked);
      List<String> calls = new ArrayList<>();
      float[][] atHook = new float[ranges.length][];
      TrainerSupport.setBackwardHook(hooked, new TrainerSupport.BackwardHook() {
        @Override
        public void layerDone(int layer) {
          calls.add("layer " + layer);
          atHook[layer] = slices(grads, ranges[layer]);
        }

        @Override
        public void beforeUpdate() {
          calls.add("update");
        }
      });
      for (int step = 0; step < 3; ++step) {
        calls.clear();
        hooked.fit(ds);
        plain.fit(ds);
        assertEquals(List.of("layer 3", "layer 2", "layer 1", "layer 0", "update"), calls);
        for (int i = 0; i < ranges.length; ++i) {
          assertArrayEquals(slices(grads, ranges[i]), atHook[i], "layer " + i + "'s gradients were final at its hook");
        }
        assertArrayEquals(plain.params().toFloatArray(), hooked.params().toFloatArray());
      }
      TrainerSupport.setBackwardHook(hooked, null);
      calls.clear();
      hooked.fit(ds);
      assertTrue(calls.isEmpty());
    } finally {
      ds.close();
    }
  }

  static float[] slices(Tensor flat, long[] ranges) {
    float[] all = flat.toFloatArray();
    float[] out = new float[0];
    for (int k = 0; k < ranges.length; k += 2) {
      int n = out.length;
      out = Arrays.copyOf(out, n + (int) ranges[k + 1]);
      System.arraycopy(all, (int) ranges[k], out, n, (int) ranges[k + 1]);
    }
    return out;
  }

  @Test
  void trainingStateRoundTripsAsNumbers() {
    DataSet ds = randomData(8, 6, 3, 5);
    try (MultiLayerNetwork a = net(); MultiLayerNetwork b = net()) {
      for (int i = 0; i < 3; ++i) {
        a.fit(ds);
      }
      a.incrementEpochCount();
      long[] s = TrainerSupport.trainingState(a);
      TrainerSupport.setTrainingState(b, s);
      assertArrayEquals(s, TrainerSupport.trainingState(b));
      assertEquals(3, b.getIterationCount());
      assertEquals(1, b.getEpochCount());
      assertArrayEquals(RandomStreams.offsets(a), RandomStreams.offsets(b));
      assertThrows(IllegalArgumentException.class, () -> TrainerSupport.setTrainingState(b, Arrays.copyOf(s, s.length - 1)));
      assertThrows(IllegalArgumentException.class, () -> TrainerSupport.setTrainingState(b, null));
    } finally {
      ds.close();
    }
  }

  @Test
  void aCheckpointIsAModelZipWithEntriesAndLoadsIntoANetwork(@TempDir Path dir) throws IOException {
    File f = dir.resolve("checkpoint.zip").toFile();
    DataSet ds = randomData(8, 6, 3, 5);
    try (MultiLayerNetwork a = net(); MultiLayerNetwork b = net()) {
      for (int i = 0; i < 3; ++i) {
        a.fit(ds);
      }
      byte[] extra = "{\"batch\": 3}".getBytes(StandardCharsets.UTF_8);
      TrainerSupport.save(a, f, Map.of("checkpoint.json", extra));
      TrainerSupport.save(a, f, Map.of("checkpoint.json", extra)); // over an existing one
      try (var files = Files.list(dir)) {
        assertEquals(List.of(f.toPath()), files.toList(), "no temporary file left");
      }
      try (MultiLayerNetwork loaded = MultiLayerNetwork.load(f)) {
        assertArrayEquals(a.params().toFloatArray(), loaded.params().toFloatArray(), "MultiLayerNetwork.load reads it");
        assertEquals(3, loaded.getIterationCount());
      }
      Map<String, byte[]> back = TrainerSupport.loadInto(b, f);
      assertEquals(List.of("checkpoint.json"), List.copyOf(back.keySet()));
      assertArrayEquals(extra, back.get("checkpoint.json"));
      assertArrayEquals(a.params().toFloatArray(), b.params().toFloatArray());
      assertArrayEquals(a.updaterState().toFloatArray(), b.updaterState().toFloatArray());
      assertArrayEquals(TrainerSupport.trainingState(a), TrainerSupport.trainingState(b));
      a.fit(ds);
      b.fit(ds);
      assertArrayEquals(a.params().toFloatArray(), b.params().toFloatArray(), "and trains on bit for bit");
      assertThrows(IllegalArgumentException.class, () -> TrainerSupport.save(a, f, Map.of("params.bin", extra)),
          "an entry may not replace a model entry");
    } finally {
      ds.close();
    }
  }

  @Test
  void loadIntoRefusesAnotherConfigurationAndLeavesTheNetwork(@TempDir Path dir) throws IOException {
    File f = dir.resolve("checkpoint.zip").toFile();
    try (MultiLayerNetwork a = net()) {
      TrainerSupport.save(a, f, Map.of());
    }
    String json = conf().toJson();
    assertTrue(json.contains("\"seed\": 11"), json);
    MultiLayerConfiguration other = MultiLayerConfiguration.fromJson(json.replace("\"seed\": 11", "\"seed\": 12"));
    try (MultiLayerNetwork b = new MultiLayerNetwork(other)) {
      b.init();
      float[] before = b.params().toFloatArray();
      IOException e = assertThrows(IOException.class, () -> TrainerSupport.loadInto(b, f));
      assertTrue(e.getMessage().contains("another configuration"), e.getMessage());
      assertArrayEquals(before, b.params().toFloatArray());
    }
    Files.writeString(dir.resolve("junk.zip"), "not a zip");
    try (MultiLayerNetwork b = net()) {
      assertThrows(IOException.class, () -> TrainerSupport.loadInto(b, dir.resolve("junk.zip").toFile()));
    }
  }
}
