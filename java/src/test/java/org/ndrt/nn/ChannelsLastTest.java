package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.ndrt.Ndrt;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.layers.ActivationLayer;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.GlobalPoolingLayer;
import org.ndrt.nn.conf.layers.PoolingType;
import org.ndrt.nn.conf.graph.ElementWiseVertex;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.updater.Nesterovs;

/**
 * Layers that keep NHWC activations between them (ChannelsLast's plan: convolution, subsampling,
 * batch norm, activation, element-wise vertices, global pooling reading them) train exactly as the
 * NCHW layers do, up to float reassociation (org.ndrt.channelsLast on against off), in a
 * MultiLayerNetwork and in a residual ComputationGraph, and show their activations NCHW.
 */
class ChannelsLastTest {
  /**
   * 10x10x3 images: a lone convolution (NCHW), batch norm, then a convolution + max pool run
   * (NHWC) whose input has 4 channels and whose data gradient goes back to the batch norm, then an
   * average pool and a dense layer on the flattened maps.
   */
  static MultiLayerConfiguration net() {
    return new NeuralNetConfiguration.Builder()
        .seed(11).l2(1e-4).weightInit(WeightInit.XAVIER).updater(new Nesterovs(0.05, 0.9))
        .list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.TANH).build())
        .layer(new BatchNormalization.Builder().build())
        .layer(new ConvolutionLayer.Builder(2, 2).nOut(5).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(1, 1).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.AVG).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().nOut(8).activation(Activation.SIGMOID).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(10, 10, 3))
        .build();
  }

  @Test
  void channelsLastRunsTrainLikeNchwLayers() {
    try (DataSet ds = MultiLayerNetworkTest.randomData(6, 10 * 10 * 3, 3, 5)) {
      try (Tensor x = ds.getFeatures().reshape(6, 3, 10, 10); DataSet images = new DataSet(x.dup(), ds.getLabels().dup())) {
        PropertyRuns.Run nchw = PropertyRuns.train(net(), "org.ndrt.channelsLast", "false", images, 3);
        PropertyRuns.Run nhwc = PropertyRuns.train(net(), "org.ndrt.channelsLast", "true", images, 3);
        assertFalse(nchw.ops.contains("transpose_copy"), "off: no layout copies");
        assertTrue(nhwc.ops.contains("transpose_copy"), "on: the run's layout copies ran (the NHWC path was taken)");
        assertEquals(nchw.params.length, nhwc.params.length);
        int moved = 0;
        for (int i = 0; i < nchw.params.length; ++i) {
          assertEquals(nchw.params[i], nhwc.params[i], 1e-5 + 1e-4 * Math.abs(nchw.params[i]), "parameter " + i);
        }
        try (MultiLayerNetwork fresh = new MultiLayerNetwork(net())) {
          fresh.init();
          float[] p0 = fresh.params().toFloatArray();
          for (int i = 0; i < p0.length; ++i) {
            moved += p0[i] != nhwc.params[i] ? 1 : 0;
          }
        }
        assertTrue(moved > nchw.params.length / 2, "training moved most parameters: " + moved);
        for (int i = 0; i < nchw.output.length; ++i) {
          assertEquals(nchw.output[i], nhwc.output[i], 1e-5, "output " + i);
        }
      }
    }
  }

  /** The batch norm between the two convolutions runs NHWC too: every layer's activations are shown NCHW, as off. */
  @Test
  void channelsLastActivationsAreShownNchw() {
    try (DataSet ds = MultiLayerNetworkTest.randomData(4, 10 * 10 * 3, 3, 6);
        Tensor x = ds.getFeatures().reshape(4, 3, 10, 10)) {
      List<float[]> off = activations(x, "false");
      List<float[]> on = activations(x, "true");
      assertEquals(off.size(), on.size());
      for (int l = 0; l < off.size(); ++l) {
        assertEquals(off.get(l).length, on.get(l).length, "layer " + l);
        for (int i = 0; i < off.get(l).length; ++i) {
          assertEquals(off.get(l)[i], on.get(l)[i], 1e-5, "layer " + l + ", element " + i);
        }
      }
    }
  }

  /** Each layer's activations flattened, preceded by its shape (so a layout difference fails). */
  private static List<float[]> activations(Tensor x, String channelsLast) {
    String old = System.getProperty("org.ndrt.channelsLast");
    System.setProperty("org.ndrt.channelsLast", channelsLast);
    try (MultiLayerNetwork n = new MultiLayerNetwork(net())) {
      n.init();
      List<float[]> out = new java.util.ArrayList<>();
      for (Tensor a : n.feedForward(x, false, n.configuration().layers().size() - 1)) {
        try (a) {
          long[] shape = a.shape();
          float[] v = a.toFloatArray();
          float[] row = new float[shape.length + v.length];
          for (int d = 0; d < shape.length; ++d) {
            row[d] = shape[d];
          }
          System.arraycopy(v, 0, row, shape.length, v.length);
          out.add(row);
        }
      }
      return out;
    } finally {
      System.setProperty("org.ndrt.channelsLast", old == null ? "auto" : old);
    }
  }

  /**
   * A residual block: conv -> BN -> ReLU -> conv -> BN, added to the first ReLU's output, ReLU,
   * global average pooling, dense, softmax. Channels-last, everything from the first convolution's output
   * to the pooling stays NHWC.
   */
  static ComputationGraphConfiguration residual() {
    ComputationGraphConfiguration.GraphBuilder g = new NeuralNetConfiguration.Builder()
        .seed(12).l2(1e-4).weightInit(WeightInit.RELU).updater(new Nesterovs(0.05, 0.9))
        .graphBuilder().addInputs("in").setInputTypes(InputType.convolutional(8, 8, 3));
    g.addLayer("c1", new ConvolutionLayer.Builder(3, 3).nOut(6).convolutionMode(ConvMode.Same)
        .activation(Activation.IDENTITY).build(), "in");
    g.addLayer("bn1", new BatchNormalization.Builder().build(), "c1");
    g.addLayer("r1", new ActivationLayer.Builder(Activation.RELU).build(), "bn1");
    g.addLayer("c2", new ConvolutionLayer.Builder(3, 3).nOut(6).convolutionMode(ConvMode.Same)
        .activation(Activation.IDENTITY).build(), "r1");
    g.addLayer("bn2", new BatchNormalization.Builder().build(), "c2");
    g.addVertex("add", new ElementWiseVertex(ElementWiseVertex.Op.Add), "bn2", "r1");
    g.addLayer("r2", new ActivationLayer.Builder(Activation.RELU).build(), "add");
    g.addLayer("pool", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), "r2");
    g.addLayer("fc", new DenseLayer.Builder().nOut(5).activation(Activation.TANH).build(), "pool");
    g.addLayer("out", new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).activation(Activation.SOFTMAX)
        .build(), "fc");
    return g.setOutputs("out").build();
  }

  @Test
  void aResidualGraphTrainsChannelsLastLikeNchw() {
    try (DataSet ds = MultiLayerNetworkTest.randomData(5, 8 * 8 * 3, 3, 7);
        Tensor x = ds.getFeatures().reshape(5, 3, 8, 8); DataSet images = new DataSet(x.dup(), ds.getLabels().dup())) {
      float[][] nchw = trainGraph(images, "false");
      float[][] nhwc = trainGraph(images, "true");
      assertEquals(nchw[0].length, nhwc[0].length);
      for (int i = 0; i < nchw[0].length; ++i) {
        assertEquals(nchw[0][i], nhwc[0][i], 1e-5 + 1e-4 * Math.abs(nchw[0][i]), "parameter " + i);
      }
      for (int i = 0; i < nchw[1].length; ++i) {
        assertEquals(nchw[1][i], nhwc[1][i], 1e-5, "output " + i);
      }
      try (ComputationGraph fresh = new ComputationGraph(residual())) {
        fresh.init();
        float[] p0 = fresh.params().toFloatArray();
        int moved = 0;
        for (int i = 0; i < p0.length; ++i) {
          moved += p0[i] != nhwc[0][i] ? 1 : 0;
        }
        assertTrue(moved > p0.length / 2, "training moved most parameters: " + moved);
      }
    }
  }

  /** Parameters after 3 steps and the output then; asserts which layout the convolutions ran in. */
  private static float[][] trainGraph(DataSet ds, String channelsLast) {
    String old = System.getProperty("org.ndrt.channelsLast");
    System.setProperty("org.ndrt.channelsLast", channelsLast);
    try (ComputationGraph g = new ComputationGraph(residual())) {
      g.init();
      Ndrt.clearProfiler();
      Ndrt.setProfilerEnabled(true);
      try {
        for (int i = 0; i < 3; ++i) {
          g.fit(ds);
        }
      } finally {
        Ndrt.setProfilerEnabled(false);
      }
      // Channels-last, the convolutions' weights are copied to OHWI for the op: transpose_copy runs.
      assertEquals(channelsLast.equals("true"), Ndrt.profilerSummary().contains("transpose_copy"), channelsLast);
      try (Tensor out = g.outputSingle(ds.getFeatures()); Tensor again = g.outputSingle(ds.getFeatures())) {
        // The first inference pass freed the pooling's buffers (its mask of ones among them); the second allocates them again.
        org.junit.jupiter.api.Assertions.assertArrayEquals(out.toFloatArray(), again.toFloatArray(), "a second pass");
        return new float[][] {g.params().toFloatArray(), out.toFloatArray()};
      }
    } finally {
      System.setProperty("org.ndrt.channelsLast", old == null ? "auto" : old);
    }
  }
}
