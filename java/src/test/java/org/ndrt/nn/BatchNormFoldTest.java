package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ndrt.Ndrt;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Nesterovs;

/**
 * A batch normalisation folded into the convolution before it (inference passes only) gives the
 * outputs of the two layers run apart, up to float rounding (org.ndrt.foldBatchNorm on against off),
 * in a residual graph and in a stack, with and without the convolution's bias, NCHW and channels-last;
 * training is untouched, and the convolution's activations are still its own.
 */
class BatchNormFoldTest {
  @BeforeAll
  static void oneThread() {
    Ndrt.setConfig("cpu.threads", "1");  // the same convolution implementation in every network
  }

  /** conv (bias or not, no activation) -> BN (ReLU) -> conv -> BN -> dense -> softmax on 7x7x3 images. */
  static MultiLayerConfiguration stack(boolean bias) {
    return new NeuralNetConfiguration.Builder().seed(21).weightInit(WeightInit.RELU).updater(new Nesterovs(0.05, 0.9))
        .list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(5).convolutionMode(ConvMode.Same).hasBias(bias)
            .activation(Activation.IDENTITY).build())
        .layer(new BatchNormalization.Builder().activation(Activation.RELU).build())
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.IDENTITY).build())
        .layer(new BatchNormalization.Builder().build())
        .layer(new DenseLayer.Builder().nOut(6).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(7, 7, 3))
        .build();
  }

  static DataSet images(int n, long seed) {
    DataSet ds = MultiLayerNetworkTest.randomData(n, 7 * 7 * 3, 3, seed);
    try (ds; Tensor x = ds.getFeatures().reshape(n, 3, 7, 7)) {
      return new DataSet(x.dup(), ds.getLabels().dup());
    }
  }

  @Test
  void aFoldedStackComputesAsTheLayersApart() {
    for (boolean bias : new boolean[] {true, false}) {
      for (String channelsLast : new String[] {"false", "true"}) {
        String where = "bias " + bias + ", channelsLast " + channelsLast;
        try (DataSet ds = images(6, 9)) {
          Ran off = trainStack(bias, channelsLast, "false", ds);
          Ran on = trainStack(bias, channelsLast, "true", ds);
          assertArrayEquals(off.params, on.params, where + ": training does not fold");
          assertEquals(true, off.inference.contains("batch_norm_inference"), where + ": apart, the batch norms ran");
          assertEquals(false, on.inference.contains("batch_norm_inference"), where + ": folded, none ran");
          assertClose(off.output, on.output, where + ": output");
          assertEquals(off.activations.size(), on.activations.size());
          for (int l = 0; l < off.activations.size(); ++l) {
            assertClose(off.activations.get(l), on.activations.get(l), where + ": activations of layer " + l);
          }
        }
      }
    }
  }

  static void assertClose(float[] want, float[] got, String what) {
    assertEquals(want.length, got.length, what);
    for (int i = 0; i < want.length; ++i) {
      assertEquals(want[i], got[i], 1e-5 + 1e-5 * Math.abs(want[i]), what + ", element " + i);
    }
  }

  static final class Ran {
    float[] params;
    float[] output;
    String inference;
    List<float[]> activations = new java.util.ArrayList<>();
  }

  /** Three training steps, then an inference pass (profiled) and every layer's inference activations. */
  static Ran trainStack(boolean bias, String channelsLast, String fold, DataSet ds) {
    System.setProperty("org.ndrt.channelsLast", channelsLast);
    System.setProperty("org.ndrt.foldBatchNorm", fold);
    Ran r = new Ran();
    try (MultiLayerNetwork n = new MultiLayerNetwork(stack(bias))) {
      n.init();
      for (int i = 0; i < 3; ++i) {
        n.fit(ds);
      }
      r.params = n.params().toFloatArray();
      Ndrt.clearProfiler();
      Ndrt.setProfilerEnabled(true);
      try (Tensor out = n.output(ds.getFeatures())) {
        r.output = out.toFloatArray();
      } finally {
        Ndrt.setProfilerEnabled(false);
      }
      r.inference = Ndrt.profilerSummary();
      for (Tensor a : n.feedForward(ds.getFeatures(), false, 4)) {
        try (a) {
          r.activations.add(a.toFloatArray());
        }
      }
      return r;
    } finally {
      System.clearProperty("org.ndrt.channelsLast");
      System.clearProperty("org.ndrt.foldBatchNorm");
    }
  }

  /** The residual graph of ChannelsLastTest: its two conv -> BN pairs fold in inference (NHWC), as apart. */
  @Test
  void aFoldedResidualGraphComputesAsTheLayersApart() {
    try (DataSet ds = MultiLayerNetworkTest.randomData(5, 8 * 8 * 3, 3, 4);
        Tensor x = ds.getFeatures().reshape(5, 3, 8, 8); DataSet imgs = new DataSet(x.dup(), ds.getLabels().dup())) {
      float[][] off = trainGraph(imgs, "false");
      float[][] on = trainGraph(imgs, "true");
      assertArrayEquals(off[0], on[0], "training does not fold");
      assertClose(off[1], on[1], "output");
    }
  }

  static float[][] trainGraph(DataSet ds, String fold) {
    System.setProperty("org.ndrt.foldBatchNorm", fold);
    try (ComputationGraph g = new ComputationGraph(ChannelsLastTest.residual())) {
      g.init();
      for (int i = 0; i < 3; ++i) {
        g.fit(ds);
      }
      Ndrt.clearProfiler();
      Ndrt.setProfilerEnabled(true);
      try (Tensor out = g.outputSingle(ds.getFeatures())) {
        Ndrt.setProfilerEnabled(false);
        assertEquals(fold.equals("false"), Ndrt.profilerSummary().contains("batch_norm_inference"), "fold " + fold);
        return new float[][] {g.params().toFloatArray(), out.toFloatArray()};
      }
    } finally {
      Ndrt.setProfilerEnabled(false);
      System.clearProperty("org.ndrt.foldBatchNorm");
    }
  }
}
