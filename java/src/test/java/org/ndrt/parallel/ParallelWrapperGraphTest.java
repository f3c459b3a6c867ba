package org.ndrt.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.ndrt.parallel.ParallelWrapperTest.assertBitsEqual;
import static org.ndrt.parallel.ParallelWrapperTest.checkAgainstReference;
import static org.ndrt.parallel.ParallelWrapperTest.data;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.ndrt.Device;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.nn.updater.Updater;

/**
 * ParallelWrapper on a ComputationGraph (one input, one output): the averaging is checked bit for bit
 * against replicas trained one after the other and averaged in Java float math, with the same
 * reference as ParallelWrapperTest's for a MultiLayerNetwork; and a chain graph with dropout trains
 * under the wrapper as the same MultiLayerNetwork does (same masks per worker, same means).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParallelWrapperGraphTest {
  static final boolean TWO_CPUS = ParallelWrapperTest.TWO_CPUS; // set once, before the JVM's first device use

  @BeforeEach
  void onCpu0() {
    Device.cpu(0).attach();
  }

  static NeuralNetConfiguration.Builder base(Updater updater) {
    return new NeuralNetConfiguration.Builder().seed(7).updater(updater);
  }

  /** 2 features -> two dense branches (tanh 8, sigmoid 5) -> merged -> softmax 3: not a chain. */
  static ComputationGraph branching(Updater updater) {
    ComputationGraph g = new ComputationGraph(base(updater).graphBuilder()
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

  /** 2 -> dense 8 tanh -> dropout 0.5 -> softmax 3 as a graph, seed 7. */
  static ComputationGraph chainGraph(Updater updater) {
    ComputationGraph g = new ComputationGraph(base(updater).graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.feedForward(2))
        .addLayer("d", new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build(), "in")
        .addLayer("drop", new DropoutLayer.Builder(0.5).build(), "d")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build(), "drop")
        .setOutputs("out")
        .build());
    g.init();
    return g;
  }

  /** The same layers as {@link #chainGraph} in a MultiLayerNetwork. */
  static MultiLayerNetwork chainNetwork(Updater updater) {
    MultiLayerNetwork net = new MultiLayerNetwork(base(updater).list()
        .layer(new DenseLayer.Builder().nOut(8).activation(Activation.TANH).build())
        .layer(new DropoutLayer.Builder(0.5).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).build())
        .setInputType(InputType.feedForward(2))
        .build());
    net.init();
    return net;
  }

  @Test
  void twoWorkersOnAGraphAverageExactlyTheMeanOfSequentialReplicas() {
    try (ComputationGraph g = branching(new Sgd(0.1))) {
      checkAgainstReference(g, 120, 10, 2, 3, true); // 12 minibatches, k = 3: two full rounds
    }
  }

  @Test
  void unevenMinibatchCountWithAdamOnAGraph() {
    // 7 minibatches over 2 workers, k = 3: the last round is worker 0 alone; Adam's two slots averaged too
    try (ComputationGraph g = branching(new Adam(0.01))) {
      checkAgainstReference(g, 66, 10, 2, 3, true);
    }
  }

  @Test
  void graphWithoutAveragedUpdatersKeepsEachReplicasState() {
    try (ComputationGraph g = branching(new Nesterovs(0.05, 0.9))) {
      checkAgainstReference(g, 120, 10, 2, 3, false);
    }
  }

  @Test
  void graphReplicasOnAnotherDeviceAreLoadedAsGraphs() {
    assumeTrue(TWO_CPUS, "needs cpu.virtual_devices=2 set before the JVM's first device use");
    try (ComputationGraph g = branching(new Sgd(0.1))) {
      checkAgainstReference(g, 66, 10, 2, 3, true, Device.cpu(0), Device.cpu(1));
    }
  }

  @Test
  void getNetworkReturnsTheGraphAsAGraph() {
    try (ComputationGraph g = branching(new Sgd(0.1)); ParallelWrapper pw = new ParallelWrapper.Builder(g).workers(2).build()) {
      ComputationGraph back = pw.getNetwork();
      assertSame(g, back);
      Model asModel = pw.getNetwork();
      assertSame(g, asModel);
    }
  }

  /**
   * A chain graph and the MultiLayerNetwork of the same layers start from the same parameters (same
   * seed) and fit a minibatch alike; under the wrapper each worker's replica draws its dropout masks
   * from stream w in both, so two epochs with two workers end with the same parameters and
   * momentum, bit for bit. The dropout makes the workers' masks part of what is compared.
   */
  @Test
  void aChainGraphTrainsUnderTheWrapperAsTheSameMultiLayerNetwork() {
    try (MultiLayerNetwork net = chainNetwork(new Nesterovs(0.05, 0.9)); ComputationGraph g = chainGraph(new Nesterovs(0.05, 0.9))) {
      assertBitsEqual(net.params().toFloatArray(), g.params().toFloatArray(), "initial parameters");
      float[] start = g.params().toFloatArray();
      for (Model m : new Model[] {net, g}) {
        try (ParallelWrapper pw = new ParallelWrapper.Builder(m).workers(2).averagingFrequency(2).prefetchBuffer(2).build()) {
          for (int e = 0; e < 2; e++) {
            pw.fit(data(100, 10, 1)); // 10 minibatches: rounds of 2 per worker, the last of 1
          }
        }
      }
      assertFalse(Arrays.equals(start, g.params().toFloatArray()), "the graph trained");
      // Bit for bit: a chain graph fits as its MultiLayerNetwork does (ComputationGraphTest), so any
      // difference comes from the wrapper. (Graph replicas all drawing from stream 0 moved the
      // parameters by 0.1 here.)
      assertBitsEqual(net.params().toFloatArray(), g.params().toFloatArray(), "parameters");
      assertBitsEqual(net.updaterState().toFloatArray(), g.updaterState().toFloatArray(), "momentum");
      assertEquals(net.getIterationCount(), g.getIterationCount());
      assertEquals(2, g.getEpochCount());
      assertEquals(net.getUpdaterStepCount(), g.getUpdaterStepCount());
    }
  }
}
