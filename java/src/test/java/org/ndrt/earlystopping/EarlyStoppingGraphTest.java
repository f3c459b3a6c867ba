package org.ndrt.earlystopping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.data.ListDataSetIterator;
import org.ndrt.earlystopping.ClassificationScoreCalculator.Metric;
import org.ndrt.earlystopping.EarlyStoppingResult.TerminationReason;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Sgd;

/**
 * Early stopping on a ComputationGraph (one input, one output) over EarlyStoppingNetworkTest's blobs:
 * the trainers stop, and the best model they return is a graph holding the parameters it had at the
 * best epoch (recorded when it was scored), kept in memory or saved to a file and loaded back as a
 * graph; a chain graph scores epoch for epoch as the MultiLayerNetwork of the same layers.
 */
class EarlyStoppingGraphTest {
  static final int TRAIN = EarlyStoppingNetworkTest.TRAIN;
  static final int TEST = EarlyStoppingNetworkTest.TEST;
  static final int BATCH = EarlyStoppingNetworkTest.BATCH;

  final int[] trainLabels = new int[TRAIN];
  final float[] trainX = EarlyStoppingNetworkTest.blobs(TRAIN, 1, trainLabels);
  final int[] testLabels = new int[TEST];
  final float[] testX = EarlyStoppingNetworkTest.blobs(TEST, 2, testLabels);

  ListDataSetIterator trainIterator() {
    return new ListDataSetIterator(trainX, new long[] {2}, trainLabels, 3, BATCH);
  }

  ListDataSetIterator testIterator() {
    return new ListDataSetIterator(testX, new long[] {2}, testLabels, 3, BATCH);
  }

  /** 2 features -> two dense branches (tanh 8, sigmoid 5) -> merged -> softmax 3: not a chain. */
  static ComputationGraph branching(double learningRate) {
    ComputationGraph g = new ComputationGraph(new NeuralNetConfiguration.Builder().seed(7).updater(new Sgd(learningRate))
        .graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.feedForward(2))
        .addLayer("a", new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build(), "in")
        .addLayer("b", new DenseLayer.Builder().nOut(5).activation(Activation.SIGMOID).build(), "in")
        .addVertex("m", new MergeVertex(), "a", "b")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build(), "m")
        .setOutputs("out")
        .build());
    g.init();
    return g;
  }

  /** EarlyStoppingNetworkTest.network's layers (2 -> dense 8 tanh -> softmax 3, seed 7) as a graph. */
  static ComputationGraph chain(double learningRate) {
    ComputationGraph g = new ComputationGraph(new NeuralNetConfiguration.Builder().seed(7).updater(new Sgd(learningRate))
        .graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.feedForward(2))
        .addLayer("d", new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build(), "in")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build(), "d")
        .setOutputs("out")
        .build());
    g.init();
    return g;
  }

  /** A calculator that records the parameters of every network it scores (one score per epoch here). */
  static final class Recording implements ScoreCalculator {
    final ScoreCalculator in;
    final List<float[]> params = new ArrayList<>();
    final List<Class<?>> kinds = new ArrayList<>();

    Recording(ScoreCalculator in) {
      this.in = in;
    }

    @Override
    public double calculateScore(Model net) {
      params.add(net.params().toFloatArray());
      kinds.add(net.getClass());
      return in.calculateScore(net);
    }

    @Override
    public boolean minimizeScore() {
      return in.minimizeScore();
    }
  }

  @Test
  void stopsAndKeepsTheBestGraphInMemory() {
    InMemoryModelSaver saver = new InMemoryModelSaver();
    try (ComputationGraph g = branching(0.1); ListDataSetIterator test = testIterator(); ListDataSetIterator train = trainIterator()) {
      DataSetLossCalculator loss = new DataSetLossCalculator(test, true);
      double untrained = loss.calculateScore(g);
      Recording calc = new Recording(loss);
      EarlyStoppingResult r = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(40), new ScoreImprovementEpochTerminationCondition(2, 0.02))
          .iterationTerminationConditions(new InvalidScoreIterationTerminationCondition())
          .scoreCalculator(calc).modelSaver(saver).saveLastModel(true).build(), g, train).fit();
      try (ComputationGraph best = r.getBestModel(); ComputationGraph latest = saver.getLatestModel()) {
        assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason(), r.toString());
        assertTrue(r.getTerminationDetails().startsWith("ScoreImprovementEpochTerminationCondition"), r.toString());
        assertTrue(r.getTotalEpochs() >= 3 && r.getTotalEpochs() < 40, r.toString());
        assertEquals(List.of(ComputationGraph.class), calc.kinds.stream().distinct().toList(), "the graph itself is scored");
        double min = Collections.min(r.getScoreVsEpoch().values());
        assertEquals(min, r.getBestModelScore());
        assertTrue(min < 0.8 * untrained, "training lowered the loss: " + r + ", untrained " + untrained);
        assertNotSame(g, best);
        assertArrayEquals(calc.params.get(r.getBestModelEpoch()), best.params().toFloatArray(),
            "the best graph holds the parameters it had when scored best");
        assertEquals(r.getBestModelScore(), loss.calculateScore(best), 1e-12 * r.getBestModelScore());
        assertArrayEquals(g.params().toFloatArray(), latest.params().toFloatArray(), "latest = the final graph");
      }
    }
  }

  @Test
  void bestGraphSavedToAFileLoadsBackAsAGraph(@TempDir Path dir) throws IOException {
    LocalFileModelSaver saver = new LocalFileModelSaver(dir.toFile());
    try (ComputationGraph g = branching(0.1); ListDataSetIterator test = testIterator(); ListDataSetIterator train = trainIterator()) {
      ClassificationScoreCalculator accuracy = new ClassificationScoreCalculator(Metric.ACCURACY, test);
      Recording calc = new Recording(accuracy);
      EarlyStoppingResult r = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(4))
          .scoreCalculator(calc).modelSaver(saver).saveLastModel(true).build(), g, train).fit();
      assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason(), r.toString());
      assertEquals(4, r.getTotalEpochs());
      assertEquals(Collections.max(r.getScoreVsEpoch().values()), r.getBestModelScore(), "accuracy is maximized");
      File file = new File(dir.toFile(), LocalFileModelSaver.BEST_MODEL);
      try (ComputationGraph best = r.getBestModel(); ComputationGraph loaded = ComputationGraph.load(file);
          Model any = Model.load(file); ComputationGraph latest = saver.getLatestModel()) {
        assertInstanceOf(ComputationGraph.class, any, "Model.load reads the graph back as a graph");
        assertArrayEquals(calc.params.get(r.getBestModelEpoch()), best.params().toFloatArray());
        assertArrayEquals(best.params().toFloatArray(), loaded.params().toFloatArray());
        assertEquals(r.getBestModelScore(), accuracy.calculateScore(best), 1e-12);
        assertArrayEquals(g.params().toFloatArray(), latest.params().toFloatArray());
        assertEquals(g.configurationJson(), best.configurationJson());
      }
      // the getters' cast is unchecked: asking for the other kind fails at the assignment
      assertThrows(ClassCastException.class, () -> {
        try (MultiLayerNetwork wrong = saver.getBestModel()) {
          wrong.numParams();
        }
      });
    }
  }

  /** The same training and scoring for both kinds: a chain graph's scores equal the MultiLayerNetwork's, bit for bit. */
  @Test
  void aChainGraphScoresEpochForEpochAsTheMultiLayerNetwork() {
    Map<Integer, Double> graphScores;
    Map<Integer, Double> netScores;
    try (ComputationGraph g = chain(0.1); MultiLayerNetwork net = EarlyStoppingNetworkTest.network(0.1);
        ListDataSetIterator test = testIterator(); ListDataSetIterator train = trainIterator()) {
      assertArrayEquals(net.params().toFloatArray(), g.params().toFloatArray(), "same start");
      EarlyStoppingConfiguration conf = new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(5))
          .scoreCalculator(new DataSetLossCalculator(test, true)).build();
      graphScores = new EarlyStoppingTrainer(conf, g, train).fit().getScoreVsEpoch();
      netScores = new EarlyStoppingTrainer(conf, net, train).fit().getScoreVsEpoch();
      assertArrayEquals(net.params().toFloatArray(), g.params().toFloatArray(), "after 5 epochs (bit for bit)");
    }
    assertEquals(netScores.keySet(), graphScores.keySet());
    for (int e : netScores.keySet()) {
      assertEquals(netScores.get(e), graphScores.get(e), "epoch " + e);
    }
    assertTrue(netScores.get(4) < netScores.get(0), "it trained: " + netScores);
  }

  @Test
  void parallelEarlyStoppingOnAGraph() {
    InMemoryModelSaver saver = new InMemoryModelSaver();
    try (ComputationGraph g = branching(0.1); ListDataSetIterator test = testIterator(); ListDataSetIterator train = trainIterator()) {
      DataSetLossCalculator loss = new DataSetLossCalculator(test, true);
      double untrained = loss.calculateScore(g);
      Recording calc = new Recording(loss);
      EarlyStoppingResult r;
      try (EarlyStoppingParallelTrainer t = new EarlyStoppingParallelTrainer(new EarlyStoppingConfiguration.Builder()
          .epochTerminationConditions(new MaxEpochsTerminationCondition(5))
          .scoreCalculator(calc).modelSaver(saver).build(), g, train, 2, 4, 2)) {
        ComputationGraph wrapped = t.getWrapper().getNetwork();
        assertTrue(wrapped == g, "the wrapper trains the graph given");
        r = t.fit();
      }
      try (ComputationGraph best = r.getBestModel()) {
        assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason(), r.toString());
        assertEquals(5, r.getTotalEpochs());
        assertEquals(5, g.getEpochCount(), "the wrapper counts the graph's epochs");
        assertEquals(Collections.min(r.getScoreVsEpoch().values()), r.getBestModelScore());
        assertTrue(r.getBestModelScore() < 0.8 * untrained, r + ", untrained " + untrained);
        assertArrayEquals(calc.params.get(r.getBestModelEpoch()), best.params().toFloatArray());
        assertEquals(r.getBestModelScore(), loss.calculateScore(best), 1e-12 * r.getBestModelScore());
      }
    }
  }
}
