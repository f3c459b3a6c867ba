package org.ndrt.earlystopping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.earlystopping.EarlyStoppingResult.TerminationReason;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.parallel.ParallelWrapper;

/** EarlyStoppingParallelTrainer on a 2-8-3 classifier over three 2-d Gaussian blobs, two workers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EarlyStoppingParallelTrainerTest {
  static ListDataSetIterator blobs(int n, long seed) {
    Random rnd = new Random(seed);
    double[][] centers = {{0, 2}, {2, -1}, {-2, -1}};
    float[] x = new float[2 * n];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      y[i] = i % 3;
      x[2 * i] = (float) (centers[i % 3][0] + 0.8 * rnd.nextGaussian());
      x[2 * i + 1] = (float) (centers[i % 3][1] + 0.8 * rnd.nextGaussian());
    }
    return new ListDataSetIterator(x, new long[] {2}, y, 3, 10);
  }

  static MultiLayerNetwork network() {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(7).updater(new Sgd(0.1))
        .list()
        .layer(new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build())
        .setInputType(InputType.feedForward(2))
        .build());
    net.init();
    return net;
  }

  static boolean workersAlive() {
    return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("ndrt-worker-") && t.isAlive());
  }

  /** Counts the wrapper's calls. */
  static final class Counter implements TrainingListener {
    final List<Integer> epochStarts = new ArrayList<>();
    int iterations;

    @Override
    public synchronized void onEpochStart(org.ndrt.nn.Model model, int epoch, long iterationsInEpoch, int batchSize) {
      epochStarts.add(epoch);
    }

    @Override
    public synchronized void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
      iterations++;
    }
  }

  @Test
  void trainsEpochsWithTheWrapperAndKeepsTheBestModel() {
    InMemoryModelSaver saver = new InMemoryModelSaver();
    try (MultiLayerNetwork net = network(); ListDataSetIterator test = blobs(60, 2)) {
      DataSetLossCalculator calc = new DataSetLossCalculator(test, true);
      double untrained = calc.calculateScore(net);
      EarlyStoppingConfiguration conf = new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(5))
          .iterationTerminationConditions(new InvalidScoreIterationTerminationCondition())
          .scoreCalculator(calc).modelSaver(saver).build();
      Counter counter = new Counter();
      EarlyStoppingResult r;
      try (EarlyStoppingParallelTrainer t = new EarlyStoppingParallelTrainer(conf, net, blobs(120, 1), 2, 4, 2)) {
        t.getWrapper().addListeners(counter);
        r = t.fit();
      }
      assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason(), r.getTerminationDetails());
      assertEquals(5, r.getTotalEpochs());
      assertEquals(5, r.getScoreVsEpoch().size());
      assertEquals(List.of(0, 1, 2, 3, 4), counter.epochStarts, "one wrapper fit() per epoch");
      assertEquals(5 * 3, counter.iterations, "12 minibatches, 2 workers, k = 2: 3 averagings per epoch");
      assertEquals(5, net.getEpochCount());
      assertTrue(r.getScoreVsEpoch().get(4) < 0.5 * untrained, untrained + " -> " + r.getScoreVsEpoch());
      try (MultiLayerNetwork best = r.getBestModel()) {
        assertNotNull(best);
        assertEquals(r.getBestModelScore(), calc.calculateScore(best), 1e-12, "the best model is the one scored");
        double min = r.getScoreVsEpoch().values().stream().mapToDouble(d -> d).min().orElseThrow();
        assertEquals(min, r.getBestModelScore());
      }
      assertTrue(!workersAlive());
    }
  }

  @Test
  void anIterationConditionStopsTheWrapperMidEpoch() {
    try (MultiLayerNetwork net = network()) {
      EarlyStoppingConfiguration conf = new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(100))
          .iterationTerminationConditions(new MaxScoreIterationTerminationCondition(1e-9)) // fires at once
          .build();
      Counter counter = new Counter();
      ParallelWrapper pw = new ParallelWrapper.Builder(net).workers(2).averagingFrequency(1).prefetchBuffer(1)
          .listeners(counter).build();
      try (EarlyStoppingParallelTrainer t = new EarlyStoppingParallelTrainer(conf, pw, blobs(300, 1))) {
        EarlyStoppingResult r = t.fit();
        assertEquals(TerminationReason.IterationTerminationCondition, r.getTerminationReason(), r.getTerminationDetails());
        assertTrue(r.getTerminationDetails().contains("epoch 0"), r.getTerminationDetails());
        assertTrue(counter.iterations <= 2, "stopped after the first averaging (and a last one), not 15: " + counter.iterations);
        assertEquals(List.of(0), counter.epochStarts);
        assertTrue(!workersAlive());
        assertEquals(1, pw.getListeners().size(), "the trainer's own listener is removed again");
      }
      pw.fit(blobs(40, 1)); // a wrapper passed in stays the caller's: still open
      pw.close();
    }
  }

  @Test
  void anEpochWithoutDataEndsWithAnError() {
    try (MultiLayerNetwork net = network()) {
      EarlyStoppingConfiguration conf = new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(3)).build();
      ListDataSetIterator empty = new ListDataSetIterator(new float[0], new long[] {2}, new int[0], 3, 10);
      try (EarlyStoppingParallelTrainer t = new EarlyStoppingParallelTrainer(conf, net, empty, 2, 2, 1)) {
        EarlyStoppingResult r = t.fit();
        assertEquals(TerminationReason.Error, r.getTerminationReason());
        assertInstanceOf(IllegalStateException.class, r.getException());
      }
    }
  }

  @Test
  void argumentsAreChecked() {
    try (MultiLayerNetwork net = network()) {
      EarlyStoppingConfiguration conf = new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(1)).build();
      assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingParallelTrainer(conf, null, blobs(10, 1)));
      assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingParallelTrainer(conf, null, blobs(10, 1), 2, 2, 1));
      assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingParallelTrainer(conf, net, blobs(10, 1), 0, 2, 1));
      assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingParallelTrainer(null, net, blobs(10, 1), 2, 2, 1));
      assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingParallelTrainer(conf, net, null, 2, 2, 1));
    }
  }
}
