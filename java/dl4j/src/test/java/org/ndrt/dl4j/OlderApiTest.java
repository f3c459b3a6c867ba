package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.Updater;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.setup.ConvolutionLayerSetup;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.AdaGrad;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** Deeplearning4j 0.x's configuration calls that its programs of that time still make (the Spark seed's). */
class OlderApiTest {
  private static NeuralNetConfiguration.ListBuilder layers(NeuralNetConfiguration.Builder b) {
    return b.list()
        .layer(0, new ConvolutionLayer.Builder(5, 5).nIn(1).nOut(4).activation("relu").build())
        .layer(1, new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3)
            .activation("softmax").build());
  }

  @Test
  void learningRateSetsTheEnumUpdatersRateBeforeOrAfter() {
    MultiLayerConfiguration before = layers(new NeuralNetConfiguration.Builder().learningRate(0.1)
        .updater(Updater.ADAGRAD)).setInputType(InputType.convolutionalFlat(8, 8, 1)).build();
    MultiLayerConfiguration after = layers(new NeuralNetConfiguration.Builder().updater(Updater.ADAGRAD)
        .learningRate(0.1)).setInputType(InputType.convolutionalFlat(8, 8, 1)).build();
    for (MultiLayerConfiguration c : new MultiLayerConfiguration[] {before, after}) {
      BaseLayer l = (BaseLayer) c.getConf(0).getLayer();
      assertTrue(l.getIUpdater() instanceof AdaGrad, String.valueOf(l.getIUpdater()));
      assertEquals(0.1, l.getIUpdater().getLearningRate(0, 0), 0.0);
    }
    // An IUpdater object keeps its own rate.
    MultiLayerConfiguration own = layers(new NeuralNetConfiguration.Builder().updater(new Adam(0.003))
        .learningRate(0.1)).setInputType(InputType.convolutionalFlat(8, 8, 1)).build();
    assertEquals(0.003, ((BaseLayer) own.getConf(0).getLayer()).getIUpdater().getLearningRate(0, 0), 0.0);
    assertThrows(IllegalArgumentException.class, () -> new NeuralNetConfiguration.Builder().learningRate(0));
  }

  @Test
  void regularizationFalseTurnsL1AndL2Off() {
    MultiLayerConfiguration off = layers(new NeuralNetConfiguration.Builder().regularization(false).l2(0.01).l1(0.02))
        .setInputType(InputType.convolutionalFlat(8, 8, 1)).build();
    MultiLayerConfiguration on = layers(new NeuralNetConfiguration.Builder().regularization(true).l2(0.01))
        .setInputType(InputType.convolutionalFlat(8, 8, 1)).build();
    assertEquals(0, ((BaseLayer) off.getConf(0).getLayer()).getL2(), 0.0);
    assertEquals(0, ((BaseLayer) off.getConf(0).getLayer()).getL1(), 0.0);
    assertEquals(0.01, ((BaseLayer) on.getConf(0).getLayer()).getL2(), 0.0);
  }

  @Test
  void convolutionLayerSetupIsTheFlatImageInputType() {
    NeuralNetConfiguration.ListBuilder b = layers(new NeuralNetConfiguration.Builder().seed(3));
    new ConvolutionLayerSetup(b, 8, 8, 1);
    MultiLayerConfiguration c = b.build();
    assertEquals(InputType.convolutionalFlat(8, 8, 1).toString(), c.getInputType().toString());
    assertTrue(c.getInputType() instanceof InputType.InputTypeConvolutionalFlat);
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    assertEquals(2, net.output(Nd4j.rand(2, 64)).size(0));  // flat rows in, as 0.x's networks took them
    assertThrows(IllegalArgumentException.class, () -> new ConvolutionLayerSetup(null, 8, 8, 1));
  }
}
