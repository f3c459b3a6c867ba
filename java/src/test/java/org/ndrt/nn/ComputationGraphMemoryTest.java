package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ndrt.Device;
import org.ndrt.Memory;
import org.ndrt.Ndrt;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.graph.ElementWiseVertex;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Sgd;

/**
 * A ComputationGraph's inference pass frees each activation once no later vertex reads it: it holds
 * a few activations at a time where a training pass holds them all, and gives the same output.
 */
class ComputationGraphMemoryTest {
  static final int N = 256;
  static final int WIDTH = 256;
  static final int DEPTH = 12;

  @BeforeAll
  static void oneThread() {
    Ndrt.setConfig("cpu.threads", "1");  // bit-for-bit comparisons between passes
  }

  /**
   * Twelve dense layers in a chain, with a skip connection (d0 is read again by the add after d5)
   * and a merge of d8 with d10 before the last dense layer: activations of N x WIDTH floats.
   */
  static ComputationGraphConfiguration deepGraph() {
    ComputationGraphConfiguration.GraphBuilder g = new NeuralNetConfiguration.Builder().seed(3).updater(new Sgd(0.01))
        .activation(Activation.TANH).graphBuilder().addInputs("in").setInputTypes(InputType.feedForward(WIDTH));
    String prev = "in";
    for (int i = 0; i < DEPTH; ++i) {
      String in = prev;
      if (i == 6) {
        g.addVertex("skip", new ElementWiseVertex(ElementWiseVertex.Op.Add), "d5", "d0");
        in = "skip";
      } else if (i == 11) {
        g.addVertex("merge", new MergeVertex(), "d8", "d10");
        in = "merge";
      }
      g.addLayer("d" + i, new DenseLayer.Builder().nOut(WIDTH).build(), in);
      prev = "d" + i;
    }
    g.addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(4).activation(Activation.SOFTMAX).build(), prev);
    return g.setOutputs("out").build();
  }

  static Tensor features(long seed) {
    Random r = new Random(seed);
    float[] x = new float[N * WIDTH];
    for (int i = 0; i < x.length; ++i) {
      x[i] = (float) r.nextGaussian();
    }
    return Tensor.from(x, N, WIDTH);
  }

  /** The output of a fresh graph's first pass, and the pass's peak memory above what was in use before it. */
  static long peakOfFirstPass(boolean train, Tensor x, float[][] out) {
    try (ComputationGraph g = new ComputationGraph(deepGraph())) {
      g.init();
      long before = Memory.stats(Device.CPU).inUse();
      Memory.resetPeak(Device.CPU);
      try (Tensor y = g.outputSingle(train, x)) {
        long peak = Memory.stats(Device.CPU).peak() - before;
        out[0] = y.toFloatArray();
        return peak;
      }
    }
  }

  @Test
  void anInferencePassHoldsAFewActivationsAtATime() {
    long activation = (long) N * WIDTH * Float.BYTES;
    try (Tensor x = features(5)) {
      float[][] kept = new float[1][];
      float[][] freed = new float[1][];
      long keptPeak = peakOfFirstPass(true, x, kept);
      long freedPeak = peakOfFirstPass(false, x, freed);
      // No dropout or batch norm: the training-mode pass computes the same output.
      assertArrayEquals(kept[0], freed[0], "the inference pass's output");
      assertTrue(keptPeak >= DEPTH * activation, "a pass that keeps them holds every activation: " + keptPeak);
      assertTrue(freedPeak <= 5 * activation, "peak of the inference pass: " + freedPeak + " bytes, activations of "
          + activation + " (the training-mode pass: " + keptPeak + ")");
    }
  }

  /** Freed buffers are allocated again: repeated inference and training between passes give the same results. */
  @Test
  void passesAfterAFreeingPassComputeAlike() {
    float[] oneHot = new float[N * 4];
    for (int i = 0; i < N; ++i) {
      oneHot[i * 4 + i % 4] = 1;
    }
    try (Tensor x = features(6); Tensor labels = Tensor.from(oneHot, N, 4);
        ComputationGraph a = new ComputationGraph(deepGraph()); ComputationGraph b = new ComputationGraph(deepGraph())) {
      a.init();
      b.init();
      float[] first;
      try (Tensor y = a.outputSingle(x)) {
        first = y.toFloatArray();
      }
      try (Tensor y = a.outputSingle(x)) {
        assertArrayEquals(first, y.toFloatArray(), "a second inference pass");
      }
      try (DataSet ds = new DataSet(x.dup(), labels.dup())) {
        a.fit(ds);  // a trains after inference passes freed its buffers, b without any
        b.fit(ds);
      }
      assertArrayEquals(b.params().toFloatArray(), a.params().toFloatArray(), "a training step after inference passes");
      try (Tensor ya = a.outputSingle(x); Tensor yb = b.outputSingle(x)) {
        assertArrayEquals(yb.toFloatArray(), ya.toFloatArray(), "inference after training");
      }
    }
  }
}
