package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;
import org.ndrt.nn.conf.Json;

/**
 * MultiLayerConfiguration.toJson / fromJson in Deeplearning4j's format on ndrt's side (the probe
 * ConfJsonProbe checks the same text against real Deeplearning4j, both ways): round trips, the sizes
 * and preprocessors the list builder would have set, a network built from the JSON computing what the
 * original computes, Deeplearning4j's own text read, the earlier field JSON still read, unknown classes
 * refused by name.
 */
class Dl4jConfJsonTest {
  /** Two layers of a configuration real Deeplearning4j 1.0.0-M2.1 wrote (MultiLayerConfiguration.toJson). */
  private static final String DL4J_MLP =
      "{\"backpropType\":\"Standard\",\"cacheMode\":\"NONE\",\"confs\":[{\"cacheMode\":\"NONE\",\"dataType\":\"FLOAT\","
      + "\"epochCount\":0,\"iterationCount\":0,\"layer\":{\"@class\":\"org.deeplearning4j.nn.conf.layers.DenseLayer\","
      + "\"activationFn\":{\"@class\":\"org.nd4j.linalg.activations.impl.ActivationTanH\"},\"biasInit\":0.0,"
      + "\"biasUpdater\":null,\"constraints\":null,\"gainInit\":1.0,\"gradientNormalization\":\"None\","
      + "\"gradientNormalizationThreshold\":1.0,\"hasBias\":true,\"hasLayerNorm\":false,\"idropout\":null,"
      + "\"iupdater\":{\"@class\":\"org.nd4j.linalg.learning.config.Adam\",\"beta1\":0.9,\"beta2\":0.999,"
      + "\"epsilon\":1e-08,\"learningRate\":0.001},\"layerName\":\"layer1\",\"nin\":8,\"nout\":6,"
      + "\"regularization\":[{\"@class\":\"org.nd4j.linalg.learning.regularization.L2Regularization\","
      + "\"l2\":{\"@class\":\"org.nd4j.linalg.schedule.FixedSchedule\",\"value\":0.0001}}],\"regularizationBias\":[],"
      + "\"timeDistributedFormat\":null,"
      + "\"weightInitFn\":{\"@class\":\"org.deeplearning4j.nn.weights.WeightInitXavier\"},\"weightNoise\":null},"
      + "\"maxNumLineSearchIterations\":5,\"miniBatch\":true,\"minimize\":true,"
      + "\"optimizationAlgo\":\"STOCHASTIC_GRADIENT_DESCENT\",\"seed\":12,\"stepFunction\":null,\"variables\":[]},"
      + "{\"cacheMode\":\"NONE\",\"dataType\":\"FLOAT\",\"epochCount\":0,\"iterationCount\":0,"
      + "\"layer\":{\"@class\":\"org.deeplearning4j.nn.conf.layers.OutputLayer\","
      + "\"activationFn\":{\"@class\":\"org.nd4j.linalg.activations.impl.ActivationSoftmax\"},\"biasInit\":0.0,"
      + "\"biasUpdater\":null,\"constraints\":null,\"gainInit\":1.0,\"gradientNormalization\":\"None\","
      + "\"gradientNormalizationThreshold\":1.0,\"hasBias\":true,\"idropout\":null,"
      + "\"iupdater\":{\"@class\":\"org.nd4j.linalg.learning.config.Adam\",\"beta1\":0.9,\"beta2\":0.999,"
      + "\"epsilon\":1e-08,\"learningRate\":0.001},\"layerName\":\"layer2\","
      + "\"lossFn\":{\"@class\":\"org.nd4j.linalg.lossfunctions.impl.LossNegativeLogLikelihood\","
      + "\"softmaxClipEps\":1e-10},\"nin\":6,\"nout\":3,"
      + "\"regularization\":[{\"@class\":\"org.nd4j.linalg.learning.regularization.L2Regularization\","
      + "\"l2\":{\"@class\":\"org.nd4j.linalg.schedule.FixedSchedule\",\"value\":0.0001}}],\"regularizationBias\":[],"
      + "\"timeDistributedFormat\":null,"
      + "\"weightInitFn\":{\"@class\":\"org.deeplearning4j.nn.weights.WeightInitXavier\"},\"weightNoise\":null},"
      + "\"maxNumLineSearchIterations\":5,\"miniBatch\":true,\"minimize\":true,"
      + "\"optimizationAlgo\":\"STOCHASTIC_GRADIENT_DESCENT\",\"seed\":12,\"stepFunction\":null,\"variables\":[]}],"
      + "\"dataType\":\"FLOAT\",\"epochCount\":0,\"inferenceWorkspaceMode\":\"ENABLED\",\"inputPreProcessors\":{},"
      + "\"iterationCount\":0,\"tbpttBackLength\":20,\"tbpttFwdLength\":20,\"trainingWorkspaceMode\":\"ENABLED\","
      + "\"validateOutputLayerConfig\":true}";

  private static MultiLayerConfiguration lenet() {
    return new NeuralNetConfiguration.Builder().seed(42).l2(5e-4).weightInit(WeightInit.XAVIER)
        .updater(new Nesterovs(0.01, 0.9)).list()
        .layer(new ConvolutionLayer.Builder(3, 3).nIn(1).nOut(4).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().nOut(10).activation(Activation.TANH).dropOut(0.8).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(8, 8, 1)).build();
  }

  private static MultiLayerConfiguration lstm() {
    return new NeuralNetConfiguration.Builder().seed(5).updater(new Adam(0.01)).list()
        .layer(new LSTM.Builder().nIn(3).nOut(6).activation(Activation.TANH).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .backpropType(BackpropType.TruncatedBPTT).tBPTTLength(4).build();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> layer(Map<String, Object> conf, int i) {
    return (Map<String, Object>) ((Map<String, Object>) ((List<Object>) conf.get("confs")).get(i)).get("layer");
  }

  @Test
  void writesDeeplearning4jFields() {
    Map<String, Object> m = Json.obj(Json.parse(lenet().toJson()), "conf");
    assertNull(m.get("@class"));
    assertEquals("org.deeplearning4j.nn.conf.layers.ConvolutionLayer", layer(m, 0).get("@class"));
    assertEquals(4L, layer(m, 0).get("nout"));
    assertEquals("layer2", layer(m, 2).get("layerName"));
    assertEquals(36L, layer(m, 2).get("nin")); // 3x3x4 after the pooling, set from the input type
    assertEquals(0.8, ((Map<?, ?>) layer(m, 2).get("idropout")).get("p"));
    assertEquals("org.nd4j.linalg.learning.config.Nesterovs", ((Map<?, ?>) layer(m, 3).get("iupdater")).get("@class"));
    Map<?, ?> pre = (Map<?, ?>) m.get("inputPreProcessors");
    assertEquals("org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor", ((Map<?, ?>) pre.get("0")).get("@class"));
    assertEquals(3L, ((Map<?, ?>) pre.get("2")).get("inputHeight"));
    Map<String, Object> r = Json.obj(Json.parse(lstm().toJson()), "conf");
    assertEquals("TruncatedBPTT", r.get("backpropType"));
    assertEquals(4L, r.get("tbpttFwdLength"));
    assertEquals(6L, layer(r, 1).get("nin"));
  }

  @Test
  void roundTripBuildsTheSameNetwork() {
    for (MultiLayerConfiguration c : new MultiLayerConfiguration[] {lenet(), lstm()}) {
      String json = c.toJson();
      MultiLayerConfiguration back = MultiLayerConfiguration.fromJson(json);
      assertEquals(json, back.toJson());
      assertEquals(c, back);
      MultiLayerNetwork a = new MultiLayerNetwork(c);
      MultiLayerNetwork b = new MultiLayerNetwork(back);
      a.init();
      b.init();
      assertEquals(a.numParams(), b.numParams());
      assertArrayEquals(a.params().data().asFloat(), b.params().data().asFloat());
      Nd4j.getRandom().setSeed(3);
      INDArray x = Nd4j.rand(c.getConf(0).getLayer() instanceof LSTM ? new int[] {2, 3, 5} : new int[] {2, 64});
      assertArrayEquals(a.output(x).data().asFloat(), b.output(x).data().asFloat(), 1e-6f);
    }
  }

  @Test
  void readsDeeplearning4jText() {
    MultiLayerConfiguration c = MultiLayerConfiguration.fromJson(DL4J_MLP);
    assertEquals(2, c.getConfs().size());
    DenseLayer d = (DenseLayer) c.getConf(0).getLayer();
    assertEquals(8, d.getNIn());
    assertEquals(6, d.getNOut());
    assertEquals(1e-4, d.getL2());
    assertEquals(new Adam(1e-3), d.getIUpdater());
    assertEquals("org.nd4j.linalg.activations.impl.ActivationTanH", d.getActivationFn().getClass().getName());
    assertEquals(12, c.getConf(1).getSeed());
    MultiLayerNetwork net = new MultiLayerNetwork(c);
    net.init();
    assertEquals(8 * 6 + 6 + 6 * 3 + 3, net.numParams());
    // Written back, it is Deeplearning4j's text again (key order and number spelling aside).
    assertEquals(Json.parse(DL4J_MLP), Json.parse(c.toJson()));
  }

  @Test
  void readsTheEarlierFieldJson() {
    MultiLayerConfiguration c = lenet();
    MultiLayerConfiguration old = MultiLayerConfiguration.fromJson(ConfJson.write(c));
    assertEquals(c.toJson(), old.toJson());
    assertEquals(c.getInputType().toString(), old.getInputType().toString());
  }

  @Test
  void neuralNetConfigurationRoundTrip() {
    NeuralNetConfiguration nc = lstm().getConf(0);
    String json = nc.toJson();
    assertEquals(json, NeuralNetConfiguration.fromJson(json).toJson());
    assertTrue(json.contains("org.deeplearning4j.nn.conf.layers.LSTM"), json);
  }

  @Test
  void unknownClassesAreRefusedByName() {
    String json = lenet().toJson();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MultiLayerConfiguration.fromJson(
        json.replace("org.deeplearning4j.nn.conf.layers.DenseLayer", "org.deeplearning4j.nn.conf.layers.PReLULayer")));
    assertTrue(e.getMessage().contains("org.deeplearning4j.nn.conf.layers.PReLULayer"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> MultiLayerConfiguration.fromJson(
        json.replace("org.nd4j.linalg.learning.config.Nesterovs", "org.nd4j.linalg.learning.config.Lion")));
    assertTrue(e.getMessage().contains("org.nd4j.linalg.learning.config.Lion"), e.getMessage());
    assertThrows(UnsupportedOperationException.class, () -> MultiLayerConfiguration.fromJson(
        json.replace("\"hasLayerNorm\": false", "\"hasLayerNorm\": true")));
  }
}
