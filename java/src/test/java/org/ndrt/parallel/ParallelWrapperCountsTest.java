package org.ndrt.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ndrt.Ndrt;
import org.ndrt.data.DataSet;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.listeners.ScoreIterationListener;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Adam;

/**
 * The wrapped network's counts after ParallelWrapper.fit: each averaging advances its iteration
 * count (and, with averaged updaters, its updater step count) by the minibatches each replica
 * fitted in that round, so the network's count is a replica's; listeners see those numbers, and a
 * later plain fit() goes on from them (Adam's bias correction included).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParallelWrapperCountsTest {
  static final int BATCH = 10;

  static MultiLayerNetwork network() {
    return ParallelWrapperTest.network(new Adam(0.01));
  }

  /**
   * {@code minibatches} minibatches of random 2-d examples, 3 classes; with {@code pairs} minibatches
   * 2i and 2i + 1 hold the same examples (so two workers dealt them round-robin see the same data).
   */
  static ListDataSetIterator data(int minibatches, boolean pairs, long seed) {
    Random r = new Random(seed);
    float[] x = new float[minibatches * BATCH * 2];
    int[] y = new int[minibatches * BATCH];
    for (int b = 0; b < minibatches; ++b) {
      for (int i = 0; i < BATCH; ++i) {
        int e = b * BATCH + i;
        int from = pairs && b % 2 == 1 ? e - BATCH : -1;
        y[e] = from >= 0 ? y[from] : r.nextInt(3);
        x[2 * e] = from >= 0 ? x[2 * from] : (float) r.nextGaussian();
        x[2 * e + 1] = from >= 0 ? x[2 * from + 1] : (float) r.nextGaussian();
      }
    }
    return new ListDataSetIterator(x, new long[] {2}, y, 3, BATCH);
  }

  /** What iterationDone gets: the iteration number, the model's own count at that moment, the epoch. */
  static final class Calls implements TrainingListener {
    final List<Long> iterations = new ArrayList<>();
    final List<Long> modelCounts = new ArrayList<>();
    final List<Integer> epochs = new ArrayList<>();

    @Override
    public synchronized void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int n) {
      iterations.add(iteration);
      modelCounts.add(model.getIterationCount());
      epochs.add(epoch);
    }
  }

  static ParallelWrapper wrapper(MultiLayerNetwork net, int k, boolean averageUpdaters, TrainingListener l) {
    return new ParallelWrapper.Builder(net).workers(2).averagingFrequency(k).prefetchBuffer(2)
        .averageUpdaters(averageUpdaters).listeners(l).build();
  }

  static void assertBits(float[] expected, float[] actual, String what) {
    assertEquals(expected.length, actual.length, what + ": length");
    for (int i = 0; i < expected.length; i++) {
      if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
        fail(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i] + " (bit for bit)");
      }
    }
  }

  @Test
  void eachAveragingAdvancesTheCountByTheRoundsIterations() {
    Calls wrapped = new Calls();
    Calls own = new Calls();
    try (MultiLayerNetwork net = network(); ParallelWrapper pw = wrapper(net, 3, true, wrapped)) {
      net.setListeners(own);
      pw.fit(data(12, false, 1)); // 6 minibatches per worker: two rounds of 3
      assertEquals(List.of(3L, 6L), wrapped.iterations, "iteration numbers: the network's count after each averaging");
      assertEquals(wrapped.iterations, wrapped.modelCounts, "the model passed has that count when called");
      assertEquals(6, net.getIterationCount());
      assertEquals(6, net.getUpdaterStepCount(), "Adam's step goes with the averaged state");
      for (org.ndrt.nn.Model replica : pw.replicas) {
        assertEquals(6, replica.getIterationCount(), "the network's count is a replica's");
        assertEquals(6, replica.getUpdaterStepCount());
      }
      assertEquals(1, net.getEpochCount());

      pw.fit(data(12, false, 2)); // the counts go on
      assertEquals(List.of(3L, 6L, 9L, 12L), wrapped.iterations);
      assertEquals(wrapped.iterations, wrapped.modelCounts);
      assertEquals(List.of(0, 0, 1, 1), wrapped.epochs);
      assertEquals(12, net.getIterationCount());
      assertEquals(2, net.getEpochCount());

      assertEquals(wrapped.iterations, own.iterations, "the network's own listeners see what the wrapper's see");
      assertEquals(wrapped.epochs, own.epochs);
      try (ListDataSetIterator more = data(1, false, 3); DataSet ds = more.next()) {
        net.fit(ds); // a plain fit goes on from the wrapper's count
      }
      assertEquals(List.of(3L, 6L, 9L, 12L, 13L), own.iterations);
      assertEquals(List.of(0, 0, 1, 1, 2), own.epochs);
    }
  }

  @Test
  void theLastShorterRoundCountsTheMostAnyWorkerFitted() {
    // 7 minibatches, k = 3: worker 0 fits 0 2 4 | 6, worker 1 fits 1 3 5 |: rounds of 3 and 1.
    Calls averaged = new Calls();
    try (MultiLayerNetwork net = network(); ParallelWrapper pw = wrapper(net, 3, true, averaged)) {
      pw.fit(data(7, false, 1));
      assertEquals(List.of(3L, 4L), averaged.iterations);
      assertEquals(4, net.getIterationCount());
      assertEquals(4, net.getUpdaterStepCount());
      assertEquals(3, pw.replicas[1].getIterationCount(), "worker 1 left before the last averaging");
      pw.fit(data(7, false, 2)); // both replicas start from the network's 4
      assertEquals(List.of(3L, 4L, 7L, 8L), averaged.iterations);
      assertEquals(8, net.getIterationCount());
      assertEquals(7, pw.replicas[1].getIterationCount());
    }
    // Reported per minibatch: the calls are numbered 1..7, the network's count still moves per averaging.
    Calls each = new Calls();
    try (MultiLayerNetwork net = network();
         ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(3)
             .reportScoreAfterAveraging(false).listeners(each).build()) {
      pw.fit(data(7, false, 1));
      assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), each.iterations);
      assertEquals(4, net.getIterationCount());
    }
  }

  /** Counts every call of each method, in order, as "start e", "it i", "end e". */
  static final class Events implements TrainingListener {
    final List<String> events = new ArrayList<>();
    final List<String> threads = new ArrayList<>();

    @Override
    public synchronized void onEpochStart(org.ndrt.nn.Model model, int epoch, long iterations, int batch) {
      events.add("start " + epoch);
    }

    @Override
    public synchronized void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int n) {
      events.add("it " + iteration);
      threads.add(Thread.currentThread().getName());
    }

    @Override
    public synchronized void onEpochEnd(org.ndrt.nn.Model model, int epoch) {
      events.add("end " + epoch);
    }
  }

  @Test
  void theNetworksListenersAreCalledWhenTheWrapperTrainsIt() {
    // Deeplearning4j's multi-GPU example: model.setListeners(new ScoreIterationListener(100)), then
    // wrapper.fit(..): the listener prints. Here every 2 iterations, into a list.
    List<String> lines = new ArrayList<>();
    Events modelOnly = new Events();
    Events both = new Events();
    Events wrapperOnly = new Events();
    try (MultiLayerNetwork net = network();
         ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(1).prefetchBuffer(24)
             .reportScoreAfterAveraging(true).build()) {
      net.setListeners(new ScoreIterationListener(2, lines::add), modelOnly, both);
      pw.setListeners(both, wrapperOnly);
      pw.fit(data(8, false, 1)); // 4 rounds of 2 minibatches: the network's count goes 1, 2, 3, 4
      List<String> expected = List.of("start 0", "it 1", "it 2", "it 3", "it 4", "end 0");
      assertEquals(expected, modelOnly.events, "the model's listener sees the wrapper's training");
      assertEquals(expected, both.events, "a listener in both lists is called once");
      assertEquals(expected, wrapperOnly.events);
      assertEquals(2, lines.size(), "ScoreIterationListener(2) on the model printed at iterations 2 and 4: " + lines);
      assertTrue(lines.get(0).startsWith("Score at iteration 2 is "), lines.get(0));
      assertTrue(lines.get(1).startsWith("Score at iteration 4 is "), lines.get(1));
      double score = Double.parseDouble(lines.get(1).substring("Score at iteration 4 is ".length()));
      assertTrue(Double.isFinite(score) && score > 0, "a real score: " + score);
    }
    // Reported per minibatch: the model's listener gets every worker's minibatch, one call at a time.
    Events each = new Events();
    try (MultiLayerNetwork net = network();
         ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(2)
             .reportScoreAfterAveraging(false).build()) {
      net.setListeners(each);
      pw.fit(data(6, false, 2));
      assertEquals(List.of("start 0", "it 1", "it 2", "it 3", "it 4", "it 5", "it 6", "end 0"), each.events);
      for (String t : each.threads) {
        assertTrue(t.startsWith("ndrt-worker-"), "called from the worker that fitted the minibatch: " + t);
      }
      net.setListeners();
      pw.fit(data(2, false, 3));
      assertEquals(8, each.events.size(), "removed from the network: no longer called");
    }
  }

  @Test
  void aPlainFitAfterwardsContinuesAdamsBiasCorrection() {
    // Both workers get the same minibatches (pairs), so the replicas stay equal and the mean
    // (a + a) * 0.5f is exactly a: the wrapper must leave the network as one replica trained alone
    // on the 6 distinct minibatches (count and Adam step included), and a further plain fit()
    // must then do what that replica's would, step 5 + 6 + 1 of the bias correction.
    List<DataSet> distinct = new ArrayList<>();
    try (MultiLayerNetwork net = network(); ListDataSetIterator warm = data(5, false, 9);
         ListDataSetIterator pairs = data(12, true, 4)) {
      while (warm.hasNext()) {
        try (DataSet ds = warm.next()) {
          net.fit(ds); // the wrapper starts from a network with counts of its own
        }
      }
      for (int b = 0; b < 12; ++b) {
        DataSet ds = pairs.next();
        if (b % 2 == 0) {
          distinct.add(ds);
        } else {
          ds.close();
        }
      }
      pairs.reset();
      try (MultiLayerNetwork alone = net.clone()) {
        fitUnderWrapperThreads(alone, distinct); // the reference, under the cpu.threads the workers run with
        float[] stateBefore = net.updaterState().toFloatArray();
        try (ParallelWrapper pw = wrapper(net, 2, true, new Calls())) {
          pw.fit(pairs);
        }
        assertFalse(Arrays.equals(stateBefore, net.updaterState().toFloatArray()), "the state was averaged in");
        assertBits(alone.params().toFloatArray(), net.params().toFloatArray(), "parameters after the wrapper");
        assertBits(alone.updaterState().toFloatArray(), net.updaterState().toFloatArray(), "Adam's moments after the wrapper");
        assertEquals(11, alone.getIterationCount());
        assertEquals(11, net.getIterationCount());
        assertEquals(11, net.getUpdaterStepCount());

        DataSet next = distinct.get(0);
        alone.fit(next);
        net.fit(next);
        assertBits(alone.params().toFloatArray(), net.params().toFloatArray(), "parameters after one more plain fit()");
        assertEquals(12, net.getUpdaterStepCount());
      }
    } finally {
      distinct.forEach(DataSet::close);
    }
  }

  /** Fits the minibatches in order, with cpu.threads as the wrapper sets it for 2 workers. */
  static void fitUnderWrapperThreads(MultiLayerNetwork net, List<DataSet> minibatches) {
    String threads = Ndrt.config("cpu.threads");
    Ndrt.setConfig("cpu.threads", Integer.toString(Math.max(1, Integer.parseInt(threads) / 2)));
    try {
      minibatches.forEach(net::fit);
    } finally {
      Ndrt.setConfig("cpu.threads", threads);
    }
  }

  @Test
  void withoutAveragedUpdatersTheStepCountStaysWithEachState() {
    Calls calls = new Calls();
    try (MultiLayerNetwork net = network(); ParallelWrapper pw = wrapper(net, 3, false, calls)) {
      float[] state = net.updaterState().toFloatArray();
      pw.fit(data(12, false, 1));
      pw.fit(data(12, false, 2));
      assertEquals(List.of(3L, 6L, 9L, 12L), calls.iterations);
      assertEquals(12, net.getIterationCount());
      assertEquals(0, net.getUpdaterStepCount(), "the network's own state was not touched, nor its step count");
      assertBits(state, net.updaterState().toFloatArray(), "the network's updater state");
      for (org.ndrt.nn.Model replica : pw.replicas) {
        assertEquals(12, replica.getUpdaterStepCount(), "each replica's step count goes with its own state");
      }
    }
  }
}
