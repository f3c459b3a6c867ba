package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
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
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.updater.Nesterovs;

/**
 * A convolution followed by 2x2 max pooling at stride 2 runs as one op (conv2d_bias_max_pool2x2;
 * backward conv2d_max_pool2x2_bp_weights / _data from the pooled gradient) where ndrt's direct kernel
 * applies, and trains as the two layers' separate ops do (org.ndrt.fuseConvPool on against off). Not compared bit for bit: each run times
 * oneDNN against ndrt's kernels for the separate convolution passes, and a loaded machine can hand
 * one run oneDNN's sums (the C++ suite compares the ops bit for bit on ndrt's kernels).
 */
class ConvPoolFusionTest {
  /** LeNet's pattern on 20x20 images: two convolution + max pool pairs (16x16 and 8x8 outputs). */
  static MultiLayerConfiguration net() {
    return new NeuralNetConfiguration.Builder()
        .seed(5).l2(1e-4).weightInit(WeightInit.XAVIER).updater(new Nesterovs(0.05, 0.9))
        .list()
        .layer(new ConvolutionLayer.Builder(5, 5).nOut(6).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new ConvolutionLayer.Builder(1, 1).nOut(7).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().nOut(10).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(20, 20, 1))
        .build();
  }

  @Test
  void fusedConvolutionAndPoolingTrainAsSeparateOps() {
    Assumptions.assumeTrue("1".equals(Ndrt.config("cpu.direct_conv")), "ndrt's direct convolution needs AVX-512");
    try (DataSet ds = MultiLayerNetworkTest.randomData(9, 20 * 20, 3, 7)) {
      try (Tensor x = ds.getFeatures().reshape(9, 1, 20, 20); DataSet images = new DataSet(x.dup(), ds.getLabels().dup())) {
        PropertyRuns.Run separate = PropertyRuns.train(net(), "org.ndrt.fuseConvPool", "false", images, 3);
        PropertyRuns.Run fused = PropertyRuns.train(net(), "org.ndrt.fuseConvPool", "true", images, 3);
        assertFalse(separate.ops.contains("conv2d_bias_max_pool2x2"), "off: the separate ops ran\n" + separate.ops);
        assertTrue(fused.ops.contains("conv2d_bias_max_pool2x2") && fused.ops.contains("conv2d_max_pool2x2_bp_weights")
            && fused.ops.contains("conv2d_max_pool2x2_bp_data") && !fused.ops.contains("max_pool2d")
            && !fused.ops.contains("conv2d_bp_weights") && !fused.ops.contains("conv2d_bp_data"),
            "on: both pairs ran fused, forward and backward\n" + fused.ops);
        assertEquals(separate.params.length, fused.params.length);
        for (int i = 0; i < separate.params.length; ++i) {
          assertEquals(separate.params[i], fused.params[i], 1e-5 + 1e-4 * Math.abs(separate.params[i]), "parameter " + i);
        }
        for (int i = 0; i < separate.output.length; ++i) {
          assertEquals(separate.output[i], fused.output[i], 1e-5, "output " + i);
        }
        try (MultiLayerNetwork fresh = new MultiLayerNetwork(net())) {
          fresh.init();
          float[] p0 = fresh.params().toFloatArray();
          int moved = 0;
          for (int i = 0; i < p0.length; ++i) {
            moved += p0[i] != fused.params[i] ? 1 : 0;
          }
          assertTrue(moved > p0.length / 2, "training moved most parameters: " + moved);
        }
      }
    }
  }
}
