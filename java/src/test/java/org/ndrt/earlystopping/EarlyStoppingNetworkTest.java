package org.ndrt.earlystopping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.Tensor;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.earlystopping.ClassificationScoreCalculator.Metric;
import org.ndrt.earlystopping.EarlyStoppingResult.TerminationReason;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.listeners.CollectScoresListener;
import org.ndrt.nn.updater.Sgd;

/**
 * End to end with a real (tiny) network: three 2-d Gaussian blobs, a 2-8-3 softmax classifier. The
 * score calculators are checked against losses and accuracies computed here from the network's
 * output; the trainer's best model against a re-scoring of it.
 */
class EarlyStoppingNetworkTest {
  static final int TRAIN = 120;
  static final int TEST = 60;
  static final int BATCH = 16;

  /** Blobs around (0, 2), (2, -1), (-2, -1); example i has class i % 3. */
  static float[] blobs(int n, long seed, int[] labelsOut) {
    Random rnd = new Random(seed);
    double[][] centers = {{0, 2}, {2, -1}, {-2, -1}};
    float[] x = new float[n * 2];
    for (int i = 0; i < n; i++) {
      int c = i % 3;
      labelsOut[i] = c;
      x[2 * i] = (float) (centers[c][0] + 0.8 * rnd.nextGaussian());
      x[2 * i + 1] = (float) (centers[c][1] + 0.8 * rnd.nextGaussian());
    }
    return x;
  }

  final int[] trainLabels = new int[TRAIN];
  final float[] trainX = blobs(TRAIN, 1, trainLabels);
  final int[] testLabels = new int[TEST];
  final float[] testX = blobs(TEST, 2, testLabels);

  ListDataSetIterator trainIterator() {
    return new ListDataSetIterator(trainX, new long[] {2}, trainLabels, 3, BATCH);
  }

  ListDataSetIterator testIterator() {
    return new ListDataSetIterator(testX, new long[] {2}, testLabels, 3, BATCH); // 16, 16, 16, 12
  }

  static MultiLayerNetwork network(double learningRate) {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(7).updater(new Sgd(learningRate))
        .list()
        .layer(new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build())
        .setInputType(InputType.feedForward(2))
        .build());
    net.init();
    return net;
  }

  /** Softmax probabilities of every test example, [TEST * 3]. */
  float[] testProbabilities(MultiLayerNetwork net) {
    try (Tensor x = Tensor.from(testX, TEST, 2); Tensor p = net.output(x)) {
      return p.toFloatArray();
    }
  }

  /** Mean cross-entropy over the test set, from the output probabilities. */
  double testLoss(MultiLayerNetwork net) {
    float[] p = testProbabilities(net);
    double sum = 0;
    for (int i = 0; i < TEST; i++) {
      sum -= Math.log(p[3 * i + testLabels[i]]);
    }
    return sum / TEST;
  }

  double testAccuracy(MultiLayerNetwork net) {
    float[] p = testProbabilities(net);
    int right = 0;
    for (int i = 0; i < TEST; i++) {
      int arg = 0;
      for (int c = 1; c < 3; c++) {
        if (p[3 * i + c] > p[3 * i + arg]) {
          arg = c;
        }
      }
      right += arg == testLabels[i] ? 1 : 0;
    }
    return right / (double) TEST;
  }

  @Test
  void scoreCalculatorsMatchTheOutput() {
    try (MultiLayerNetwork net = network(0.1); ListDataSetIterator test = testIterator()) {
      net.fit(trainIterator()); // one epoch, so the scores are not those of a random network
      double expected = testLoss(net);
      // minibatches of 16, 16, 16, 12: weighting each by its size gives the plain mean over examples
      assertEquals(expected, new DataSetLossCalculator(test, true).calculateScore(net), 1e-5 * expected);
      assertEquals(expected * TEST, new DataSetLossCalculator(test, false).calculateScore(net), 1e-5 * expected * TEST);
      assertEquals(testAccuracy(net), new ClassificationScoreCalculator(Metric.ACCURACY, test).calculateScore(net), 1e-12);
    }
  }

  @Test
  void earlyStoppingEndToEnd() {
    InMemoryModelSaver saver = new InMemoryModelSaver();
    CollectScoresListener scores = new CollectScoresListener();
    try (MultiLayerNetwork net = network(0.1); ListDataSetIterator test = testIterator();
        ListDataSetIterator train = trainIterator()) {
      net.setListeners(scores);
      double untrained = testLoss(net);
      DataSetLossCalculator calc = new DataSetLossCalculator(test, true);
      EarlyStoppingResult r = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(40), new ScoreImprovementEpochTerminationCondition(2, 0.02))
          .iterationTerminationConditions(new InvalidScoreIterationTerminationCondition())
          .scoreCalculator(calc).modelSaver(saver).saveLastModel(true).build(), net, train).fit();
      try (MultiLayerNetwork best = r.getBestModel(); MultiLayerNetwork latest = saver.getLatestModel()) {
        // the loss keeps falling, by less and less: the improvement condition ends training
        assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason(), r.toString());
        assertTrue(r.getTerminationDetails().startsWith("ScoreImprovementEpochTerminationCondition"), r.toString());
        assertTrue(r.getTotalEpochs() >= 3 && r.getTotalEpochs() < 40, r.toString());
        assertEquals(r.getTotalEpochs(), r.getScoreVsEpoch().size());
        double min = Collections.min(r.getScoreVsEpoch().values());
        assertEquals(min, r.getBestModelScore());
        assertEquals(min, r.getScoreVsEpoch().get(r.getBestModelEpoch()));
        assertTrue(r.getBestModelScore() < 0.8 * untrained, "training lowered the loss: " + r + ", untrained " + untrained);

        // the kept copy is the network as it was at the best epoch, not the network itself
        assertNotSame(net, best);
        assertEquals(r.getBestModelScore(), calc.calculateScore(best), 1e-6 * r.getBestModelScore());
        assertEquals(r.getBestModelScore(), testLoss(best), 1e-5 * r.getBestModelScore());
        assertTrue(testAccuracy(best) > 0.8, "accuracy " + testAccuracy(best));
        assertArrayEquals(net.params().toFloatArray(), latest.params().toFloatArray(), "latest = the final network");

        // the network's own listeners saw every minibatch
        assertEquals(r.getTotalEpochs() * ((TRAIN + BATCH - 1) / BATCH), scores.size());
        assertEquals(net.score(), scores.last().score());
      }
    }
  }

  @Test
  void localFileSaverKeepsLoadableModels(@TempDir Path dir) throws IOException {
    LocalFileModelSaver saver = new LocalFileModelSaver(dir.toFile());
    try (MultiLayerNetwork net = network(0.1); ListDataSetIterator test = testIterator();
        ListDataSetIterator train = trainIterator()) {
      EarlyStoppingResult r = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(3))
          .scoreCalculator(new ClassificationScoreCalculator(Metric.ACCURACY, test)).modelSaver(saver).saveLastModel(true)
          .build(), net, train).fit();
      try (Stream<Path> files = Files.list(dir)) {
        assertEquals(List.of(LocalFileModelSaver.BEST_MODEL, LocalFileModelSaver.LATEST_MODEL),
            files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList()), "no temporary file left");
      }
      assertEquals(3, r.getTotalEpochs());
      double max = Collections.max(r.getScoreVsEpoch().values());
      assertEquals(max, r.getBestModelScore(), "accuracy is maximized");
      try (MultiLayerNetwork best = r.getBestModel(); MultiLayerNetwork latest = saver.getLatestModel()) {
        assertEquals(r.getBestModelScore(), testAccuracy(best), 1e-12);
        assertArrayEquals(net.params().toFloatArray(), latest.params().toFloatArray());
      }
    }
  }

  @Test
  void inMemorySaverClosesTheCopyItReplaces() {
    InMemoryModelSaver saver = new InMemoryModelSaver();
    try (MultiLayerNetwork net = network(0.1)) {
      saver.saveBestModel(net, 1.0);
      MultiLayerNetwork first = saver.getBestModel();
      net.fit(trainIterator());
      saver.saveBestModel(net, 0.5);
      assertThrows(IllegalStateException.class, first::numParams, "the replaced copy is closed");
      try (MultiLayerNetwork second = saver.getBestModel()) {
        assertNotSame(net, second);
        assertArrayEquals(net.params().toFloatArray(), second.params().toFloatArray());
      }
    }
  }

  /** A learning rate far too large: the minibatch loss explodes and the trainer stops mid-epoch. */
  @Test
  void divergenceStopsTraining() {
    try (MultiLayerNetwork net = network(500); ListDataSetIterator test = testIterator();
        ListDataSetIterator train = trainIterator()) {
      EarlyStoppingResult r = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(50))
          .iterationTerminationConditions(new MaxScoreIterationTerminationCondition(20))
          .scoreCalculator(new DataSetLossCalculator(test, true)).build(), net, train).fit();
      assertEquals(TerminationReason.IterationTerminationCondition, r.getTerminationReason(), r.toString());
      assertTrue(!Double.isFinite(net.score()) || net.score() > 20, "last minibatch score " + net.score());
      Map<Integer, Double> s = r.getScoreVsEpoch();
      assertEquals(r.getTotalEpochs(), s.size());
      try (MultiLayerNetwork best = r.getBestModel()) {
        if (best != null) {
          assertEquals(r.getBestModelScore(), testLoss(best), 1e-5 * Math.abs(r.getBestModelScore()));
        }
      }
    }
  }
}
