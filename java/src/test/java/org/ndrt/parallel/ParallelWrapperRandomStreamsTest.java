package org.ndrt.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.ndrt.parallel.ParallelWrapperCountsTest.BATCH;
import static org.ndrt.parallel.ParallelWrapperCountsTest.assertBits;
import static org.ndrt.parallel.ParallelWrapperCountsTest.data;
import static org.ndrt.parallel.ParallelWrapperCountsTest.fitUnderWrapperThreads;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ndrt.data.DataSet;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.RandomStreams;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Sgd;

/**
 * Each worker draws its dropout masks from its own random stream (worker w: stream w), runs are
 * reproducible, and the wrapped network's streams move past every number the workers drew.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParallelWrapperRandomStreamsTest {
  static final int WIDTH = 8; // the dropout layer's input width
  static final long DRAWS = BATCH * WIDTH; // numbers the dropout layer draws per minibatch

  /** 2 features -> dense 8 -> dropout 0.5 -> softmax 3, SGD. */
  static MultiLayerNetwork network() {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(7).updater(new Sgd(0.1))
        .list()
        .layer(new DenseLayer.Builder().nOut(WIDTH).activation(Activation.TANH).build())
        .layer(new DropoutLayer.Builder(0.5).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build())
        .setInputType(InputType.feedForward(2))
        .build());
    net.init();
    return net;
  }

  static ParallelWrapper wrapper(MultiLayerNetwork net, int k, TrainingListener... ls) {
    return new ParallelWrapper.Builder(net).workers(2).averagingFrequency(k).prefetchBuffer(2).listeners(ls).build();
  }

  @Test
  void theTwoWorkersDrawDifferentMasksOnTheSameMinibatch() {
    // Both workers get the same minibatch from the same parameters: only the masks can tell their
    // replicas apart. Each must be what a copy of the network on the worker's stream would train.
    try (MultiLayerNetwork net = network(); ListDataSetIterator pair = data(2, true, 3);
         DataSet first = pair.next(); MultiLayerNetwork alone0 = net.clone(); MultiLayerNetwork alone1 = net.clone()) {
      pair.reset();
      RandomStreams.setStream(alone1, 1);
      fitUnderWrapperThreads(alone0, List.of(first));
      fitUnderWrapperThreads(alone1, List.of(first));
      try (ParallelWrapper pw = wrapper(net, 1)) {
        pw.fit(pair);
        // After the last averaging the replicas are not set again: each holds what it trained.
        float[] a = pw.replicas[0].params().toFloatArray();
        float[] b = pw.replicas[1].params().toFloatArray();
        assertFalse(Arrays.equals(a, b), "the workers' first masks differ");
        assertBits(alone0.params().toFloatArray(), a, "worker 0: the network's own stream 0");
        assertBits(alone1.params().toFloatArray(), b, "worker 1: stream 1");
        assertEquals(0, RandomStreams.stream(pw.replicas[0]));
        assertEquals(1, RandomStreams.stream(pw.replicas[1]));
        assertEquals(0, RandomStreams.stream(net), "the network keeps its own stream");
        float[] mean = new float[a.length];
        for (int i = 0; i < a.length; ++i) {
          mean[i] = (a[i] + b[i]) * 0.5f;
        }
        assertBits(mean, net.params().toFloatArray(), "the network: the mean of the two");
        assertArrayEquals(new long[] {0, DRAWS, 0}, RandomStreams.offsets(net));
      }
    }
  }

  /** Two fits of a fresh wrapper on a fresh network: the parameters and the stream offsets. */
  static float[] run(List<long[]> offsets) {
    try (MultiLayerNetwork net = network(); ParallelWrapper pw = wrapper(net, 2)) {
      pw.fit(data(9, false, 1));
      pw.fit(data(9, false, 2));
      offsets.add(RandomStreams.offsets(net));
      return net.params().toFloatArray();
    }
  }

  @Test
  void identicalRunsGiveBitIdenticalParameters() {
    List<long[]> offsets = new ArrayList<>();
    float[] first = run(offsets);
    float[] second = run(offsets);
    assertBits(first, second, "the second run's parameters");
    // 9 minibatches a fit: worker 0 fits 5 of them, the most; two fits.
    assertArrayEquals(new long[] {0, 2 * 5 * DRAWS, 0}, offsets.get(0));
    assertArrayEquals(offsets.get(0), offsets.get(1));
  }

  /** The dropout layer's offset in the network after each averaging. */
  static final class Offsets implements TrainingListener {
    final List<Long> seen = new ArrayList<>();

    @Override
    public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int n) {
      seen.add(RandomStreams.offsets((org.ndrt.nn.MultiLayerNetwork) model)[1]);
    }
  }

  @Test
  void theNetworksStreamsMovePastEveryWorkersDraws() {
    Offsets calls = new Offsets();
    try (MultiLayerNetwork net = network(); ListDataSetIterator warm = data(1, false, 5);
         ParallelWrapper pw = wrapper(net, 1, calls)) {
      try (DataSet ds = warm.next()) {
        net.fit(ds);
      }
      long start = DRAWS; // the plain fit drew one minibatch's worth
      assertArrayEquals(new long[] {0, start, 0}, RandomStreams.offsets(net));

      // 5 minibatches: worker 0 fits 3, worker 1 fits 2, both from the network's offset.
      pw.fit(data(5, false, 6));
      assertArrayEquals(new long[] {0, start + 3 * DRAWS, 0}, RandomStreams.offsets(pw.replicas[0]));
      assertArrayEquals(new long[] {0, start + 2 * DRAWS, 0}, RandomStreams.offsets(pw.replicas[1]));
      long after1 = start + 3 * DRAWS; // the furthest either worker went
      assertArrayEquals(new long[] {0, after1, 0}, RandomStreams.offsets(net));
      // Averagings after rounds 1 and 2 (both workers), then 3 (worker 0 alone).
      assertEquals(List.of(start + DRAWS, start + 2 * DRAWS, after1), calls.seen);

      // A plain fit in between draws from stream 0, worker 0's, at after1.
      try (DataSet ds = data(1, false, 7).next()) {
        net.fit(ds);
      }
      long start2 = after1 + DRAWS;
      // The next fit starts every worker at the network's offset: past all the draws above (worker 0
      // going on from its own offset, after1, would repeat the plain fit's masks).
      pw.fit(data(5, false, 8));
      assertArrayEquals(new long[] {0, start2 + 3 * DRAWS, 0}, RandomStreams.offsets(pw.replicas[0]));
      assertArrayEquals(new long[] {0, start2 + 2 * DRAWS, 0}, RandomStreams.offsets(pw.replicas[1]));
      long after2 = start2 + 3 * DRAWS;
      assertArrayEquals(new long[] {0, after2, 0}, RandomStreams.offsets(net));
      assertEquals(List.of(start + DRAWS, start + 2 * DRAWS, after1, start2 + DRAWS, start2 + 2 * DRAWS, after2), calls.seen);

      // A later plain fit goes on from there, past worker 0's draws.
      try (DataSet ds = data(1, false, 9).next()) {
        net.fit(ds);
      }
      assertArrayEquals(new long[] {0, after2 + DRAWS, 0}, RandomStreams.offsets(net));
      assertEquals(0, RandomStreams.stream(net));
    }
  }
}
