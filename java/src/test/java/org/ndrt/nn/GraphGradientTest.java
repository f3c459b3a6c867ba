package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.graph.DuplicateToTimeSeriesVertex;
import org.ndrt.nn.conf.graph.ElementWiseVertex;
import org.ndrt.nn.conf.graph.L2NormalizeVertex;
import org.ndrt.nn.conf.graph.LastTimeStepVertex;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.graph.PreprocessorVertex;
import org.ndrt.nn.conf.graph.ReshapeVertex;
import org.ndrt.nn.conf.graph.ScaleVertex;
import org.ndrt.nn.conf.graph.ShiftVertex;
import org.ndrt.nn.conf.graph.StackVertex;
import org.ndrt.nn.conf.graph.SubsetVertex;
import org.ndrt.nn.conf.graph.UnstackVertex;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.ParamSpec;

/**
 * ComputationGraph gradients against central differences in f64, through every vertex kind, fan-in
 * (element-wise vertices, merges, a layer with several inputs, several outputs) and fan-out (a
 * vertex feeding several others, whose gradients are summed): the graph's runner computes in f64
 * on f64 parameters of its own, random in [-0.8, 0.8], on random inputs and soft labels.
 */
class GraphGradientTest {
  /** A graph's runner in f64 with parameters of its own. */
  static final class F64Graph implements AutoCloseable {
    final GraphRunner runner;
    final List<Tensor[]> params = new ArrayList<>();
    final List<Tensor[]> grads = new ArrayList<>();

    F64Graph(ComputationGraphConfiguration conf, long seed) {
      Random r = new Random(seed);
      runner = new GraphRunner(conf, DType.F64);
      for (LayerImpl l : runner.layers()) {
        List<ParamSpec> ss = l.params();
        Tensor[] p = new Tensor[ss.size()];
        Tensor[] g = new Tensor[ss.size()];
        for (int j = 0; j < p.length; ++j) {
          double[] v = new double[(int) ss.get(j).numel()];
          boolean variance = ss.get(j).kind == ParamSpec.Kind.STATE;
          for (int k = 0; k < v.length; ++k) {
            v[k] = variance ? 1 + r.nextDouble() : (r.nextDouble() * 2 - 1) * 0.8;
          }
          p[j] = Tensor.from(v, ss.get(j).shape);
          g[j] = ss.get(j).kind == ParamSpec.Kind.STATE ? null : Tensor.zeros(DType.F64, ss.get(j).shape);
        }
        l.bind(p, g);
        params.add(p);
        grads.add(g);
      }
    }

    double loss(Tensor[] x, Tensor[] y, Tensor[] masks) {
      runner.setMasks(x, masks, null);
      runner.forward(x, true);
      return runner.loss(y);
    }

    void backward(Tensor[] y) {
      try (Tensor one = Tensor.scalar(1, DType.F64)) {
        runner.backward(y, one, null);
      }
    }

    @Override
    public void close() {
      runner.close();
      for (List<Tensor[]> ls : List.of(params, grads)) {
        for (Tensor[] ts : ls) {
          for (Tensor t : ts) {
            if (t != null) {
              t.close();
            }
          }
        }
      }
    }
  }

  static double[] random(Random r, int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) {
      v[i] = r.nextDouble() * 2 - 1;
    }
    return v;
  }

  /** Soft labels: rows of {@code c} summing to 1 ([n, c], or [n, c, t] with t > 0). */
  static Tensor softLabels(Random r, int n, int c, int t) {
    int steps = Math.max(t, 1);
    double[] v = new double[n * c * steps];
    for (int b = 0; b < n; ++b) {
      for (int s = 0; s < steps; ++s) {
        int k = r.nextInt(c);
        for (int j = 0; j < c; ++j) {
          v[(b * c + j) * steps + s] = j == k ? 0.7 : 0.3 / (c - 1);
        }
      }
    }
    return t > 0 ? Tensor.from(v, n, c, t) : Tensor.from(v, n, c);
  }

  /**
   * Every trained parameter's gradient against central differences (h = 1e-6); at least {@code
   * minNonzero} of them must be clearly non-zero (the check would pass on a graph that passes no
   * gradient otherwise).
   */
  static void check(ComputationGraphConfiguration conf, Tensor[] x, Tensor[] y, Tensor[] masks, long seed) {
    try (F64Graph g = new F64Graph(conf, seed)) {
      double l0 = g.loss(x, y, masks);
      assertTrue(Double.isFinite(l0) && l0 > 0, "loss " + l0);
      g.backward(y);
      double h = 1e-6;
      int checked = 0;
      int nonzero = 0;
      for (int i = 0; i < g.params.size(); ++i) {
        Tensor[] ps = g.params.get(i);
        for (int j = 0; j < ps.length; ++j) {
          if (g.grads.get(i)[j] == null) {
            continue;
          }
          double[] p = ps[j].toDoubleArray();
          double[] an = g.grads.get(i)[j].toDoubleArray();
          for (int k = 0; k < p.length; ++k) {
            double keep = p[k];
            p[k] = keep + h;
            ps[j].copyFrom(p);
            double lp = g.loss(x, y, masks);
            p[k] = keep - h;
            ps[j].copyFrom(p);
            double lm = g.loss(x, y, masks);
            p[k] = keep;
            ps[j].copyFrom(p);
            double num = (lp - lm) / (2 * h);
            double tol = 1e-6 + 1e-5 * Math.max(Math.abs(num), Math.abs(an[k]));
            assertEquals(num, an[k], tol, "layer " + i + " (" + conf.layers().get(i).name() + ") param " + j + " element "
                + k);
            ++checked;
            nonzero += Math.abs(an[k]) > 1e-7 ? 1 : 0;
          }
        }
      }
      assertTrue(checked > 0 && nonzero > checked / 2, nonzero + " of " + checked + " gradients non-zero");
    }
  }

  static NeuralNetConfiguration.Builder base() {
    return new NeuralNetConfiguration.Builder().seed(3).activation(Activation.TANH);
  }

  @Test
  void everyElementWiseOpMergeSubsetScaleShiftL2StackUnstackAndTwoOutputs() {
    ComputationGraphConfiguration conf = base().graphBuilder()
        .addInputs("a", "b")
        .setInputTypes(InputType.feedForward(4), InputType.feedForward(3))
        .addLayer("dA", new DenseLayer.Builder().nOut(5).build(), "a")
        .addLayer("dB", new DenseLayer.Builder().nOut(5).activation(Activation.SIGMOID).build(), "b")
        .addLayer("dC", new DenseLayer.Builder().nOut(5).activation(Activation.IDENTITY).build(), "a", "b")
        .addVertex("add", new ElementWiseVertex(ElementWiseVertex.Op.Add), "dA", "dB", "dC")
        .addVertex("sub", new ElementWiseVertex(ElementWiseVertex.Op.Subtract), "dA", "dB")
        .addVertex("prod", new ElementWiseVertex(ElementWiseVertex.Op.Product), "dA", "dB", "dC")
        .addVertex("avg", new ElementWiseVertex(ElementWiseVertex.Op.Average), "dA", "dC")
        .addVertex("max", new ElementWiseVertex(ElementWiseVertex.Op.Max), "dA", "dB", "dC")
        .addVertex("merge", new MergeVertex(), "add", "sub", "prod", "avg", "max")
        .addVertex("subset", new SubsetVertex(3, 17), "merge")
        .addVertex("scale", new ScaleVertex(0.7), "subset")
        .addVertex("shift", new ShiftVertex(-0.2), "scale")
        .addVertex("l2", new L2NormalizeVertex(), "shift")
        .addVertex("stack", new StackVertex(), "l2", "subset")
        .addLayer("dS", new DenseLayer.Builder().nOut(6).build(), "stack")
        .addVertex("u0", new UnstackVertex(0, 2), "dS")
        .addVertex("u1", new UnstackVertex(1, 2), "dS")
        .addVertex("e", new ElementWiseVertex(ElementWiseVertex.Op.Add), "u0", "u1")
        .addLayer("out1", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(), "e")
        .addLayer("out2", new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build(), "dA", "e")
        .setOutputs("out1", "out2")
        .build();
    Random r = new Random(11);
    int n = 4;
    try (Tensor a = Tensor.from(random(r, n * 4), n, 4);
         Tensor b = Tensor.from(random(r, n * 3), n, 3);
         Tensor y1 = softLabels(r, n, 3, 0);
         Tensor y2 = Tensor.from(random(r, n * 2), n, 2)) {
      check(conf, new Tensor[] {a, b}, new Tensor[] {y1, y2}, null, 12);
    }
  }

  @Test
  void imagesThroughMergeOfChannelsPreprocessorsReshapePoolingAndBatchNorm() {
    ComputationGraphConfiguration conf = base().graphBuilder()
        .addInputs("img")
        .setInputTypes(InputType.convolutional(5, 5, 2))
        .addLayer("c1", new ConvolutionLayer.Builder(3, 3).nOut(3).convolutionMode(ConvMode.Same).build(), "img")
        .addLayer("c2", new ConvolutionLayer.Builder(3, 3).nOut(2).convolutionMode(ConvMode.Same).hasBias(false)
            .activation(Activation.RELU).build(), "img")
        .addVertex("m", new MergeVertex(), "c1", "c2")
        .addLayer("bn", new BatchNormalization.Builder().build(), "m")
        .addLayer("c3", new ConvolutionLayer.Builder(2, 2).nOut(2).build(), "bn")   // 4x4x2
        .addLayer("pool", new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.AVG, new int[] {2, 2}, new int[] {2, 2}).build(), "c3")
        .addVertex("flat", PreprocessorVertex.cnnToFeedForward(), "pool")       // 8
        .addLayer("d", new DenseLayer.Builder().nOut(18).build(), "flat")
        .addVertex("img2", PreprocessorVertex.feedForwardToCnn(3, 3, 2), "d")
        .addLayer("c4", new ConvolutionLayer.Builder(2, 2).nOut(2).build(), "img2")  // 2x2x2
        .addVertex("rows", new ReshapeVertex(-1, 8), "c4")
        .addVertex("skip", new ElementWiseVertex(ElementWiseVertex.Op.Add), "rows", "flat")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(), "skip")
        .setOutputs("out")
        .build();
    Random r = new Random(21);
    int n = 3;
    try (Tensor x = Tensor.from(random(r, n * 50), n, 2, 5, 5);
         Tensor y = softLabels(r, n, 3, 0)) {
      check(conf, new Tensor[] {x}, new Tensor[] {y}, null, 22);
    }
  }

  @Test
  void sequencesThroughLastTimeStepDuplicateToTimeSeriesAndMergeUnderAMask() {
    ComputationGraphConfiguration conf = base().graphBuilder()
        .addInputs("seq")
        .setInputTypes(InputType.recurrent(3, 5))
        .addLayer("lstm", new LSTM.Builder().nOut(4).activation(Activation.TANH).build(), "seq")
        .addVertex("last", new LastTimeStepVertex("seq"), "lstm")
        .addLayer("d", new DenseLayer.Builder().nOut(3).build(), "last")
        .addVertex("dup", new DuplicateToTimeSeriesVertex("seq"), "d")
        .addVertex("m", new MergeVertex(), "lstm", "dup")
        .addLayer("out", new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build(), "m")
        .setOutputs("out")
        .build();
    Random r = new Random(31);
    int n = 3;
    try (Tensor x = Tensor.from(random(r, n * 3 * 5), n, 3, 5);
         Tensor mask = Tensor.from(new double[] {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0}, n, 5).cast(DType.F32);
         Tensor y = softLabels(r, n, 2, 5)) {
      check(conf, new Tensor[] {x}, new Tensor[] {y}, new Tensor[] {mask}, 32);
      check(conf, new Tensor[] {x}, new Tensor[] {y}, null, 33);
    }
  }

  @Test
  void sequencesReshapedToRowsAndBack() {
    ComputationGraphConfiguration conf = base().graphBuilder()
        .addInputs("seq")
        .setInputTypes(InputType.recurrent(2, 3))
        .addLayer("lstm", new LSTM.Builder().nOut(3).activation(Activation.TANH).build(), "seq")
        .addVertex("rows", new ReshapeVertex(-1, 9), "lstm")
        .addLayer("d", new DenseLayer.Builder().nOut(6).build(), "rows")
        .addVertex("back", new ReshapeVertex(-1, 2, 3), "d")
        .addLayer("out", new RnnOutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build(), "back")
        .setOutputs("out")
        .build();
    Random r = new Random(41);
    int n = 2;
    try (Tensor x = Tensor.from(random(r, n * 2 * 3), n, 2, 3);
         Tensor y = softLabels(r, n, 2, 3)) {
      check(conf, new Tensor[] {x}, new Tensor[] {y}, null, 42);
    }
  }
}
