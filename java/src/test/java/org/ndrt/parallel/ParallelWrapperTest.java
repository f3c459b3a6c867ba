package org.ndrt.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ndrt.DType;
import org.ndrt.Device;
import org.ndrt.Memory;
import org.ndrt.Ndrt;
import org.ndrt.NdrtException;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.nn.updater.Updater;

/**
 * ParallelWrapper on a tiny 2-8-3 classifier over three 2-d Gaussian blobs. The averaging is checked
 * bit for bit against replicas trained one after the other here, fed the minibatches the wrapper
 * deals out (worker w gets minibatches w, w + workers, ...), and averaged in plain Java float math.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a deadlock fails the test instead of hanging the run
class ParallelWrapperTest {
  /** Two cpu devices (cpu:0, cpu:1) for the cross-device test, if this JVM has not used devices yet. */
  static final boolean TWO_CPUS = twoCpuDevices();

  static boolean twoCpuDevices() {
    try {
      Ndrt.setConfig("cpu.virtual_devices", "2");
      return Device.count(Device.Type.CPU) == 2;
    } catch (NdrtException e) {
      return false;
    }
  }

  @BeforeEach
  void onCpu0() {
    Device.cpu(0).attach(); // with two cpu devices a thread would otherwise get one round-robin
  }

  // ------------------------------------------------------------------------------------- fixtures

  /** n examples around (0, 2), (2, -1), (-2, -1); example i has class i % 3. Features row-major [n, 2]. */
  static float[] blobs(int n, long seed, int[] labels) {
    Random rnd = new Random(seed);
    double[][] centers = {{0, 2}, {2, -1}, {-2, -1}};
    float[] x = new float[2 * n];
    for (int i = 0; i < n; i++) {
      labels[i] = i % 3;
      x[2 * i] = (float) (centers[i % 3][0] + 0.8 * rnd.nextGaussian());
      x[2 * i + 1] = (float) (centers[i % 3][1] + 0.8 * rnd.nextGaussian());
    }
    return x;
  }

  static ListDataSetIterator data(int n, int batch, long seed) {
    int[] y = new int[n];
    float[] x = blobs(n, seed, y);
    return new ListDataSetIterator(x, new long[] {2}, y, 3, batch);
  }

  static MultiLayerNetwork network(Updater updater) {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(7).updater(updater)
        .list()
        .layer(new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build())
        .setInputType(InputType.feedForward(2))
        .build());
    net.init();
    return net;
  }

  static List<DataSet> all(DataSetIterator it) {
    List<DataSet> out = new ArrayList<>();
    while (it.hasNext()) {
      out.add(it.next());
    }
    return out;
  }

  static void closeAll(List<DataSet> ds) {
    ds.forEach(DataSet::close);
  }

  /** An iterator keeping every DataSet it hands out (to check they get closed); it can hand a bad one or break. */
  static final class Recording implements DataSetIterator {
    final DataSetIterator in;
    final List<DataSet> taken = Collections.synchronizedList(new ArrayList<>());
    int badAt = -1; // this minibatch gets labels of the wrong width (the network throws)
    int breakAt = -1; // next() throws instead of handing out this minibatch
    final RuntimeException breakWith = new IllegalStateException("the iterator broke");

    Recording(DataSetIterator in) {
      this.in = in;
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public DataSet next() {
      if (taken.size() == breakAt) {
        throw breakWith;
      }
      DataSet ds = in.next();
      if (taken.size() == badAt) {
        long n = ds.numExamples();
        ds.close();
        ds = new DataSet(Tensor.zeros(DType.F32, n, 2), Tensor.zeros(DType.F32, n, 2));
      }
      taken.add(ds);
      return ds;
    }

    @Override
    public void reset() {
      in.reset();
    }

    @Override
    public int batchSize() {
      return in.batchSize();
    }

    @Override
    public long numExamples() {
      return in.numExamples();
    }

    @Override
    public int totalOutcomes() {
      return in.totalOutcomes();
    }

    boolean allClosed() {
      synchronized (taken) {
        return taken.stream().allMatch(d -> d.features().isClosed() && d.labels().isClosed());
      }
    }
  }

  /** Records what the wrapper's listeners see: the network's parameters and state after each call, the scores. */
  static final class Recorder implements TrainingListener {
    final List<float[]> params = new ArrayList<>();
    final List<float[]> states = new ArrayList<>();
    final List<Double> scores = new ArrayList<>();
    final List<Long> iterations = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    final Set<String> threads = new HashSet<>();
    final Set<Device> devices = new HashSet<>();
    final List<String> cpuThreads = new ArrayList<>();
    long examples;

    @Override
    public synchronized void onEpochStart(org.ndrt.nn.Model model, int epoch, long iterationsInEpoch, int batchSize) {
      events.add("start " + epoch + " " + iterationsInEpoch);
    }

    @Override
    public synchronized void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int n) {
      params.add(model.params().toFloatArray());
      states.add(model.updaterState().toFloatArray());
      scores.add(score);
      iterations.add(iteration);
      examples += n;
      threads.add(Thread.currentThread().getName());
      devices.add(Device.current());
      cpuThreads.add(Ndrt.config("cpu.threads"));
    }

    @Override
    public synchronized void onEpochEnd(org.ndrt.nn.Model model, int epoch) {
      events.add("end " + epoch);
    }
  }

  // ------------------------------------------------------------------------------- the reference

  /** The means (and scores) the wrapper must produce, computed without it. */
  static final class Reference {
    final List<float[]> params = new ArrayList<>();
    final List<float[]> states = new ArrayList<>();
    final List<Double> scores = new ArrayList<>();
  }

  /**
   * Replicas cloned from {@code start} (a MultiLayerNetwork or a ComputationGraph), worker w fitting
   * minibatches w, w + workers, ... with plain Model.fit(DataSet), k of them per round; after each round the parameters (and the
   * updater state when {@code averageUpdaters}) of the workers that trained are averaged as
   * {@code (p_0 + p_1 + ...) * (float) (1.0 / m)} in Java float math and copied to every replica.
   * Runs under the cpu.threads value the wrapper uses, so every kernel splits its work the same way.
   */
  static Reference reference(Model start, List<DataSet> batches, int workers, int k, boolean averageUpdaters) {
    String threads = Ndrt.config("cpu.threads");
    Ndrt.setConfig("cpu.threads", Integer.toString(Math.max(1, Integer.parseInt(threads) / workers)));
    Model[] r = new Model[workers];
    try {
      for (int w = 0; w < workers; w++) {
        r[w] = start.clone();
      }
      int perWorker0 = (batches.size() + workers - 1) / workers;
      int rounds = Math.max(1, (perWorker0 + k - 1) / k);
      Reference ref = new Reference();
      for (int round = 0; round < rounds; round++) {
        List<Integer> trained = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
          for (int i = round * k; i < (round + 1) * k && w + i * workers < batches.size(); i++) {
            r[w].fit(batches.get(w + i * workers));
            if (!trained.contains(w)) {
              trained.add(w);
            }
          }
        }
        List<float[]> ps = new ArrayList<>();
        List<float[]> ss = new ArrayList<>();
        double score = 0;
        for (int w : trained) {
          ps.add(r[w].params().toFloatArray());
          ss.add(r[w].updaterState().toFloatArray());
          score += r[w].score();
        }
        if (trained.size() > 1) { // otherwise the test would not show that anything is averaged
          assertFalse(Arrays.equals(ps.get(0), ps.get(1)), "replicas trained on different data differ");
        }
        float[] p = mean(ps);
        float[] s = averageUpdaters ? mean(ss) : null;
        ref.params.add(p);
        ref.states.add(s);
        ref.scores.add(score / trained.size());
        for (Model replica : r) {
          try (Tensor t = Tensor.from(p, p.length)) {
            replica.setParams(t);
          }
          if (s != null && s.length > 0) {
            try (Tensor t = Tensor.from(s, s.length)) {
              replica.setUpdaterState(t);
            }
          }
        }
      }
      return ref;
    } finally {
      for (Model replica : r) {
        if (replica != null) {
          replica.close();
        }
      }
      Ndrt.setConfig("cpu.threads", threads);
    }
  }

  static float[] mean(List<float[]> xs) {
    float[] acc = xs.get(0).clone();
    for (int i = 1; i < xs.size(); i++) {
      float[] x = xs.get(i);
      for (int j = 0; j < acc.length; j++) {
        acc[j] = acc[j] + x[j];
      }
    }
    if (xs.size() > 1) {
      float inv = (float) (1.0 / xs.size());
      for (int j = 0; j < acc.length; j++) {
        acc[j] = acc[j] * inv;
      }
    }
    return acc;
  }

  static void assertBitsEqual(float[] expected, float[] actual, String what) {
    assertEquals(expected.length, actual.length, what + ": length");
    for (int i = 0; i < expected.length; i++) {
      if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
        fail(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i] + " (bit for bit)");
      }
    }
  }

  /**
   * Trains one epoch with the wrapper and checks every averaging (as the listener saw the network)
   * and the final network against {@link #reference}.
   */
  static void checkAgainstReference(Updater updater, int examples, int batch, int workers, int k, boolean averageUpdaters,
      Device... devices) {
    try (MultiLayerNetwork net = network(updater)) {
      checkAgainstReference(net, examples, batch, workers, k, averageUpdaters, devices);
    }
  }

  /** {@link #checkAgainstReference(Updater, int, int, int, int, boolean, Device...)} on a given network of either kind. */
  static void checkAgainstReference(Model net, int examples, int batch, int workers, int k, boolean averageUpdaters,
      Device... devices) {
    List<DataSet> batches = all(data(examples, batch, 1));
    Recorder rec = new Recorder();
    try (Model start = net.clone()) {
      float[] stateBefore = net.updaterState().toFloatArray();
      ParallelWrapper.Builder b = new ParallelWrapper.Builder(net).workers(workers).averagingFrequency(k)
          .prefetchBuffer(2).averageUpdaters(averageUpdaters).listeners(rec);
      if (devices.length > 0) {
        b.devices(devices);
      }
      Recording it = new Recording(data(examples, batch, 1));
      try (ParallelWrapper pw = b.build()) {
        pw.fit(it);
      }
      assertEquals(batches.size(), it.taken.size(), "every minibatch taken once");
      assertTrue(it.allClosed(), "every DataSet closed");
      Reference ref = reference(start, batches, workers, k, averageUpdaters);
      assertEquals(ref.params.size(), rec.params.size(), "one iterationDone per averaging");
      for (int i = 0; i < ref.params.size(); i++) {
        assertBitsEqual(ref.params.get(i), rec.params.get(i), "parameters after averaging " + i);
        assertEquals(ref.scores.get(i), rec.scores.get(i), "mean score reported after averaging " + i);
        assertBitsEqual(averageUpdaters ? ref.states.get(i) : stateBefore, rec.states.get(i), "updater state after averaging " + i);
      }
      assertBitsEqual(ref.params.get(ref.params.size() - 1), net.params().toFloatArray(), "the network after fit()");
      assertEquals(1, net.getEpochCount());
      assertEquals(List.of("start 0 " + ref.params.size(), "end 0"), rec.events);
    } finally {
      closeAll(batches);
    }
  }

  static Set<Thread> workerThreads() {
    Set<Thread> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("ndrt-worker-") && t.isAlive()) {
        out.add(t);
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------------- tests

  @Test
  void averagingIsExactlyTheMeanOfSequentialReplicas() {
    // 12 minibatches, 2 workers, k = 3: two full rounds
    checkAgainstReference(new Sgd(0.1), 120, 10, 2, 3, true);
  }

  @Test
  void unevenMinibatchCountUsesEveryMinibatchOnce() {
    // 7 minibatches (the last of 6), k = 3: worker 0 gets 0 2 4 6, worker 1 gets 1 3 5; the second
    // round is worker 0 alone with minibatch 6. Adam: two state slots averaged too.
    checkAgainstReference(new Adam(0.01), 66, 10, 2, 3, true);
  }

  @Test
  void threeWorkersAverageWithAThird() {
    // 10 minibatches over 3 workers, k = 2: 4 3 3, rounds of (2 2 2), (2 1 1); mean * (float) (1/3)
    checkAgainstReference(new Nesterovs(0.05, 0.9), 100, 10, 3, 2, true);
  }

  @Test
  void moreWorkersThanMinibatches() {
    // 2 minibatches, 3 workers: worker 2 gets none and is left out of the mean
    checkAgainstReference(new Sgd(0.1), 20, 10, 3, 2, true);
  }

  @Test
  void withoutAveragedUpdatersTheStateStaysEachReplicas() {
    checkAgainstReference(new Nesterovs(0.05, 0.9), 120, 10, 2, 3, false);
  }

  @Test
  void workersOnTwoDevicesAverageTheSame() {
    assumeTrue(TWO_CPUS, "needs cpu.virtual_devices=2 set before the JVM's first device use");
    checkAgainstReference(new Sgd(0.1), 66, 10, 2, 3, true, Device.cpu(0), Device.cpu(1));
  }

  @Test
  void perWorkerReportsComeFromTheWorkersAndCountEveryMinibatch() {
    Recorder rec = new Recorder();
    Device[] devices = TWO_CPUS ? new Device[] {Device.cpu(0), Device.cpu(1)} : new Device[] {Device.cpu(0)};
    try (MultiLayerNetwork net = network(new Sgd(0.1));
        ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(3)
            .reportScoreAfterAveraging(false).devices(devices).listeners(rec).build()) {
      pw.fit(data(66, 10, 1)); // 7 minibatches
      assertEquals(7, rec.scores.size());
      assertEquals(66, rec.examples);
      assertEquals(Set.of("ndrt-worker-0", "ndrt-worker-1"), rec.threads);
      assertEquals(Set.of(devices), rec.devices, "each worker runs on its device");
      assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), rec.iterations);
      assertEquals(List.of("start 0 7", "end 0"), rec.events);
      pw.fit(data(66, 10, 1)); // the count goes on; the epoch advances
      assertEquals(14L, rec.iterations.get(13));
      assertEquals(List.of("start 0 7", "end 0", "start 1 7", "end 1"), rec.events);
      assertEquals(2, net.getEpochCount());
    }
  }

  @Test
  void workerExceptionSurfacesAndStopsEveryWorker() {
    try (MultiLayerNetwork net = network(new Sgd(0.1));
        ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(2).prefetchBuffer(1).build()) {
      Recording it = new Recording(data(400, 10, 1)); // 40 minibatches
      it.badAt = 3;
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pw.fit(it));
      assertInstanceOf(IllegalArgumentException.class, e.getCause());
      assertTrue(e.getMessage().contains("worker 1"), e.getMessage()); // minibatch 3 is worker 1's
      assertTrue(e.getCause().getMessage().contains("labels"), e.getCause().getMessage());
      assertEquals(Set.of(), workerThreads(), "no worker left running");
      assertTrue(it.taken.size() < 40, "feeding stopped (took " + it.taken.size() + ")");
      assertTrue(it.allClosed(), "every DataSet taken was closed");
      assertEquals(0, net.getEpochCount(), "a failed epoch is not counted");

      pw.fit(data(40, 10, 1)); // the wrapper is still usable
      assertEquals(1, net.getEpochCount());
    }
  }

  @Test
  void listenerExceptionSurfacesWithItsCause() {
    IllegalStateException boom = new IllegalStateException("listener failed");
    TrainingListener bad = new TrainingListener() {
      @Override
      public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
        throw boom;
      }
    };
    try (MultiLayerNetwork net = network(new Sgd(0.1));
        ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(1).listeners(bad).build()) {
      Recording it = new Recording(data(100, 10, 1));
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> pw.fit(it));
      assertSame(boom, e.getCause());
      assertEquals(Set.of(), workerThreads());
      assertTrue(it.allClosed());
    }
  }

  @Test
  void iteratorExceptionIsRethrownAsIs() {
    try (MultiLayerNetwork net = network(new Sgd(0.1));
        ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(2).build()) {
      Recording it = new Recording(data(100, 10, 1));
      it.breakAt = 5;
      RuntimeException e = assertThrows(RuntimeException.class, () -> pw.fit(it));
      assertSame(it.breakWith, e);
      assertEquals(Set.of(), workerThreads());
      assertEquals(5, it.taken.size());
      assertTrue(it.allClosed());
    }
  }

  @Test
  void cpuThreadsAreSharedOutDuringFitAndRestoredAfter() {
    String original = Ndrt.config("cpu.threads");
    try {
      Ndrt.setConfig("cpu.threads", "4");
      Recorder rec = new Recorder();
      try (MultiLayerNetwork net = network(new Sgd(0.1));
          ParallelWrapper two = new ParallelWrapper.Builder(net).workers(2).listeners(rec).build();
          ParallelWrapper three = new ParallelWrapper.Builder(net).workers(3).listeners(rec).build()) {
        two.fit(data(40, 10, 1));
        assertEquals(Set.of("2"), new HashSet<>(rec.cpuThreads), "4 threads / 2 workers");
        assertEquals("4", Ndrt.config("cpu.threads"));
        rec.cpuThreads.clear();
        three.fit(data(40, 10, 1));
        assertEquals(Set.of("1"), new HashSet<>(rec.cpuThreads), "4 threads / 3 workers, rounded down");
        assertEquals("4", Ndrt.config("cpu.threads"));

        Recording bad = new Recording(data(40, 10, 1));
        bad.badAt = 1;
        assertThrows(IllegalArgumentException.class, () -> two.fit(bad));
        assertEquals("4", Ndrt.config("cpu.threads"), "restored after a failed fit too");
      }
    } finally {
      Ndrt.setConfig("cpu.threads", original);
    }
  }

  /** Mean cross-entropy and accuracy on held-out data, from the network's output probabilities. */
  static double[] lossAndAccuracy(MultiLayerNetwork net, int n, long seed) {
    int[] y = new int[n];
    float[] x = blobs(n, seed, y);
    try (Tensor in = Tensor.from(x, n, 2); Tensor out = net.output(in)) {
      float[] p = out.toFloatArray();
      double loss = 0;
      int right = 0;
      for (int i = 0; i < n; i++) {
        loss -= Math.log(p[3 * i + y[i]]);
        int arg = 0;
        for (int c = 1; c < 3; c++) {
          arg = p[3 * i + c] > p[3 * i + arg] ? c : arg;
        }
        right += arg == y[i] ? 1 : 0;
      }
      return new double[] {loss / n, right / (double) n};
    }
  }

  @Test
  void trainingWithTwoWorkersLearnsTheBlobs() {
    Recorder rec = new Recorder();
    try (MultiLayerNetwork net = network(new Sgd(0.1));
        ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(2).listeners(rec).build()) {
      double[] before = lossAndAccuracy(net, 300, 99);
      ListDataSetIterator train = data(300, 10, 1); // 30 minibatches: 8 averagings per epoch
      for (int e = 0; e < 8; e++) {
        pw.fit(train); // reset by fit() itself once the epoch is over
      }
      double[] after = lossAndAccuracy(net, 300, 99);
      assertTrue(after[0] < 0.5 * before[0], "held-out loss " + before[0] + " -> " + after[0]);
      assertTrue(after[1] > 0.9, "held-out accuracy " + before[1] + " -> " + after[1]);
      assertEquals(8, net.getEpochCount());
      assertEquals(8 * 8, rec.scores.size());
      assertEquals(8 * 300, rec.examples, "the reported examples add up to the data");
      assertEquals("start 7 8", rec.events.get(14));
      double first = rec.scores.subList(0, 8).stream().mapToDouble(d -> d).average().orElseThrow();
      double last = rec.scores.subList(56, 64).stream().mapToDouble(d -> d).average().orElseThrow();
      assertTrue(last < 0.5 * first, "reported training score " + first + " -> " + last);
    }
  }

  @Test
  void stopFitEndsTheEpochEarlyWithALastAveraging() {
    try (MultiLayerNetwork net = network(new Sgd(0.1))) {
      Recorder rec = new Recorder();
      ParallelWrapper[] self = new ParallelWrapper[1];
      TrainingListener stopper = new TrainingListener() {
        @Override
        public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
          self[0].stopFit();
        }
      };
      try (ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(1).prefetchBuffer(1)
          .listeners(rec, stopper).build()) {
        self[0] = pw;
        Recording it = new Recording(data(1000, 10, 1)); // 100 minibatches
        pw.fit(it);
        assertTrue(it.taken.size() < 100, "took " + it.taken.size());
        assertTrue(it.allClosed());
        assertTrue(rec.scores.size() <= 2, "the averaging that stopped it and at most a last one: " + rec.scores.size());
        assertBitsEqual(rec.params.get(rec.params.size() - 1), net.params().toFloatArray(), "the last mean is the network's");
        assertEquals(1, net.getEpochCount());
        assertEquals(Set.of(), workerThreads());

        pw.fit(it); // the next fit() goes on from where the iterator is (not stopped)
        assertEquals(2, net.getEpochCount());
      }
    }
  }

  @Test
  void argumentsAndLifecycleAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> new ParallelWrapper.Builder(null));
    try (MultiLayerNetwork raw = new MultiLayerNetwork(network(new Sgd(0.1)).getConfiguration())) {
      assertThrows(IllegalStateException.class, () -> new ParallelWrapper.Builder(raw)); // not initialised
    }
    try (MultiLayerNetwork net = network(new Sgd(0.1))) {
      ParallelWrapper.Builder b = new ParallelWrapper.Builder(net);
      assertThrows(IllegalArgumentException.class, () -> b.workers(0));
      assertThrows(IllegalArgumentException.class, () -> b.prefetchBuffer(0));
      assertThrows(IllegalArgumentException.class, () -> b.averagingFrequency(0));
      assertThrows(IllegalArgumentException.class, () -> b.devices());
      assertThrows(IllegalArgumentException.class, () -> b.devices(Device.cuda(99)));
      assertThrows(IllegalArgumentException.class, () -> b.listeners((TrainingListener) null));

      long before = Memory.liveHandles();
      ParallelWrapper pw = b.workers(2).build();
      assertThrows(IllegalArgumentException.class, () -> pw.fit(null));
      assertThrows(IllegalArgumentException.class, () -> pw.addListeners((TrainingListener) null));
      pw.fit(data(40, 10, 1));
      pw.close();
      assertTrue(Memory.liveHandles() <= before, "the replicas and every DataSet released: "
          + Memory.liveHandles() + " handles, " + before + " before");
      pw.close(); // twice is fine
      assertThrows(IllegalStateException.class, () -> pw.fit(data(40, 10, 1)));
    }
  }
}
