package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ndrt.nn.MultiLayerNetworkTest.assertBits;
import static org.ndrt.nn.TrainingStateSaveLoadTest.HIDDEN;
import static org.ndrt.nn.TrainingStateSaveLoadTest.N;
import static org.ndrt.nn.TrainingStateSaveLoadTest.assertSameTraining;
import static org.ndrt.nn.TrainingStateSaveLoadTest.close;
import static org.ndrt.nn.TrainingStateSaveLoadTest.conf;
import static org.ndrt.nn.TrainingStateSaveLoadTest.data;
import static org.ndrt.nn.TrainingStateSaveLoadTest.rewrite;
import static org.ndrt.nn.TrainingStateSaveLoadTest.state;
import static org.ndrt.nn.TrainingStateSaveLoadTest.train;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.DType;
import org.ndrt.Memory;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.layers.LayerImpl;

/**
 * A network's random streams (RandomStreams): stream s of layer i is Philox key seed + 1 + i +
 * s * 2^32; the stream is training state (clone, save/load), a zip without it loads with stream 0,
 * and bad input is a clear error that changes nothing.
 */
class RandomStreamsTest {
  static final long SEED = 11; // conf()'s
  static final int DROPOUT = 1; // conf()'s dropout layer

  /** The dropout layer's output for all-ones input: 2 where kept, 0 where dropped (p = 0.5). */
  static float[] drawOnes(MultiLayerNetwork net) {
    try (Tensor ones = Tensor.from(filled(N * HIDDEN), N, HIDDEN)) {
      return net.layers()[DROPOUT].forward(ones, true).toFloatArray();
    }
  }

  /** What the dropout op gives for all-ones input with this key and offset. */
  static float[] expected(long key, long offset) {
    try (Tensor ones = Tensor.from(filled(N * HIDDEN), N, HIDDEN); Ops.DropoutResult r = Ops.dropout(ones, 0.5, key, offset)) {
      return r.y.toFloatArray();
    }
  }

  static float[] filled(int n) {
    float[] v = new float[n];
    Arrays.fill(v, 1);
    return v;
  }

  @Test
  void streamSOfLayerIDrawsFromKeySeedPlusOnePlusIPlusSTimes2To32() {
    try (MultiLayerNetwork a = new MultiLayerNetwork(conf(DType.F32)); MultiLayerNetwork b = new MultiLayerNetwork(conf(DType.F32))) {
      a.init();
      b.init();
      RandomStreams.setStream(b, 3);
      assertEquals(0, RandomStreams.stream(a));
      assertEquals(3, RandomStreams.stream(b));
      for (LayerImpl l : b.layers()) {
        assertEquals(3, l.randomStream(), "every layer draws from the chosen stream");
      }
      long key0 = SEED + 1 + DROPOUT;
      long key3 = key0 + (3L << 32);
      float[] a0 = drawOnes(a);
      float[] b0 = drawOnes(b);
      assertBits(expected(key0, 0), a0);
      assertBits(expected(key3, 0), b0);
      assertFalse(Arrays.equals(a0, b0), "streams 0 and 3 drop different elements");
      // Both move on along their own stream.
      assertArrayEquals(new long[] {0, N * HIDDEN, 0, 0}, RandomStreams.offsets(b));
      assertBits(expected(key3, N * HIDDEN), drawOnes(b));
      // Setting the stream keeps the offset: stream 0 of b from 2 * N * HIDDEN on.
      RandomStreams.setStream(b, 0);
      assertBits(expected(key0, 2 * N * HIDDEN), drawOnes(b));
    }
  }

  @Test
  void theStreamGoesWithCloneAndSaveLoad(@TempDir Path dir) throws IOException {
    File f = dir.resolve("s.zip").toFile();
    DataSet[] data = data();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf(DType.F32)); MultiLayerNetwork other = new MultiLayerNetwork(conf(DType.F32))) {
      net.init();
      other.init();
      RandomStreams.setStream(net, 2);
      train(net, data, 3);
      train(other, data, 3);
      assertFalse(Arrays.equals(net.params().toFloatArray(), other.params().toFloatArray()),
          "stream 2 trains another way than stream 0");
      net.save(f);
      assertTrue(state(f).contains("\"randomStream\": 2"), state(f));
      try (MultiLayerNetwork c = net.clone(); MultiLayerNetwork loaded = MultiLayerNetwork.load(f)) {
        assertEquals(2, RandomStreams.stream(c));
        assertEquals(2, RandomStreams.stream(loaded));
        train(net, data, 4);
        train(c, data, 4);
        train(loaded, data, 4);
        assertSameTraining(net, c, data[0]);
        assertSameTraining(net, loaded, data[0]);
        assertArrayEquals(new long[] {0, 7 * N * HIDDEN, 0, 0}, RandomStreams.offsets(loaded));
      }
    } finally {
      close(data);
    }
  }

  @Test
  void aZipWithoutTheStreamLoadsWithStreamZeroAndBadOnesAreClearErrors(@TempDir Path dir) throws IOException {
    File f = dir.resolve("s.zip").toFile();
    File edited = dir.resolve("edited.zip").toFile();
    try (MultiLayerNetwork net = new MultiLayerNetwork(conf(DType.F32))) {
      net.init();
      RandomStreams.setStream(net, 5);
      net.save(f);
    }
    String key = ",\n  \"randomStream\": 5";
    assertTrue(state(f).contains(key), state(f));
    rewrite(f, edited, json -> json.replace(key, "")); // as written before the stream was saved
    assertFalse(state(edited).contains("randomStream"), state(edited));
    try (MultiLayerNetwork loaded = MultiLayerNetwork.load(edited)) {
      assertEquals(0, RandomStreams.stream(loaded));
    }
    long before = Memory.liveHandles();
    String[][] cases = {
        {"-1", "\"randomStream\" must be >= 0"},
        {"2147483648", "\"randomStream\" must be <= 2147483647"},
        {"1.5", "must be an integer"},
    };
    for (String[] c : cases) {
      rewrite(f, edited, json -> json.replace(key, ",\n  \"randomStream\": " + c[0]));
      IOException e = assertThrows(IOException.class, () -> MultiLayerNetwork.load(edited), c[0]);
      assertTrue(e.getMessage().contains(c[1]) && e.getMessage().contains(edited.getName()), e.getMessage());
    }
    assertEquals(before, Memory.liveHandles(), "a load that fails releases what it made");
  }

  @Test
  void badInputIsAClearErrorAndChangesNothing() {
    MultiLayerNetwork net = new MultiLayerNetwork(conf(DType.F32));
    try {
      IllegalStateException notInit = assertThrows(IllegalStateException.class, () -> RandomStreams.offsets(net));
      assertTrue(notInit.getMessage().contains("init()"), notInit.getMessage());
      net.init();
      RandomStreams.setOffsets(net, new long[] {0, 40, 0, 0});
      RandomStreams.setStream(net, 1);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RandomStreams.setStream(null, 1));
      assertTrue(e.getMessage().contains("must not be null"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> RandomStreams.setStream(net, -1));
      assertTrue(e.getMessage().contains("must be >= 0, got -1"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> RandomStreams.setOffsets(net, null));
      assertTrue(e.getMessage().contains("need 4 offsets (one per layer), got null"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> RandomStreams.setOffsets(net, new long[3]));
      assertTrue(e.getMessage().contains("need 4 offsets (one per layer), got 3"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> RandomStreams.setOffsets(net, new long[] {0, 80, 0, -1}));
      assertTrue(e.getMessage().contains("draws no random numbers"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> RandomStreams.setOffsets(net, new long[] {0, -80, 0, 0}));
      assertTrue(e.getMessage().contains("must be >= 0, got -80"), e.getMessage());
      assertArrayEquals(new long[] {0, 40, 0, 0}, RandomStreams.offsets(net), "all or nothing");
      assertEquals(1, RandomStreams.stream(net));
    } finally {
      net.close();
    }
    assertThrows(IllegalStateException.class, () -> RandomStreams.stream(net), "closed");
  }
}
