package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.Activation;
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
 * Runs of convolution / subsampling layers that keep NHWC activations between them train exactly as
 * the NCHW layers do, up to float reassociation (org.ndrt.channelsLast on against off).
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
}
