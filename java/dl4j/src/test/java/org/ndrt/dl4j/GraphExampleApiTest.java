package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.InvocationType;
import org.deeplearning4j.optimize.listeners.EvaluativeListener;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * API that Deeplearning4j's ComputationGraph examples use (GenerateTxtCharCompGraphModel: getNumLayers,
 * getLayer(i).numParams(); DL4JAlphaGoZeroBuilder: GraphBuilder.setInputPreProcessors;
 * MultiDigitNumberRecognition: EvaluativeListener on a graph and a MultiDataSetIterator).
 */
class GraphExampleApiTest {
  /** in [n,2,5,5] -> conv 3x3 (4) -> BN -> dense "d" (CNN->FF from the map or from addLayer) + skip "e" -> out. */
  private static ComputationGraphConfiguration.GraphBuilder builder(boolean viaMap) {
    CnnToFeedForwardPreProcessor pre = new CnnToFeedForwardPreProcessor(3, 3, 4);
    ComputationGraphConfiguration.GraphBuilder b = new NeuralNetConfiguration.Builder().seed(7).updater(new Sgd(0.1))
        .graphBuilder().addInputs("in")
        .addLayer("conv", new ConvolutionLayer.Builder(3, 3).nIn(2).nOut(4).activation(Activation.RELU).build(), "in")
        .addLayer("bn", new BatchNormalization.Builder().nOut(4).build(), "conv")
        .addLayer("d", new DenseLayer.Builder().nIn(36).nOut(5).activation(Activation.TANH).build(), viaMap ? null : pre, "bn")
        .addLayer("d2", new DenseLayer.Builder().nIn(5).nOut(5).activation(Activation.TANH).build(), "d")
        .addVertex("e", new ElementWiseVertex(ElementWiseVertex.Op.Add), "d", "d2")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nIn(5).nOut(3)
            .activation(Activation.IDENTITY).build(), "e")
        .setOutputs("out").setInputTypes(InputType.convolutional(5, 5, 2));
    if (viaMap) {
      Map<String, InputPreProcessor> first = new HashMap<>();
      first.put("out", new CnnToFeedForwardPreProcessor(1, 1, 5)); // dropped by the second call, as in Deeplearning4j
      b.setInputPreProcessors(first);
      Map<String, InputPreProcessor> second = new HashMap<>();
      second.put("d", pre);
      b.setInputPreProcessors(second);
    }
    return b;
  }

  @Test
  void setInputPreProcessorsReplacesTheMapAndBuildPutsThemBeforeTheirLayers() {
    ComputationGraphConfiguration.GraphBuilder b = builder(true);
    assertEquals(1, b.getInputPreProcessors().size());
    ComputationGraphConfiguration viaMap = b.build();
    assertTrue(((LayerVertex) viaMap.getVertices().get("d")).getPreProcessor() instanceof CnnToFeedForwardPreProcessor);
    assertNull(((LayerVertex) viaMap.getVertices().get("out")).getPreProcessor());

    // The same network as one given its preprocessor at addLayer: same outputs, bit for bit.
    INDArray x = Nd4j.rand(new int[] {3, 2, 5, 5}).subi(0.5);
    ComputationGraph a = new ComputationGraph(viaMap);
    a.init();
    ComputationGraph c = new ComputationGraph(builder(false).build());
    c.init();
    assertArrayEquals(c.params().toFloatVector(), a.params().toFloatVector());
    INDArray ya = a.outputSingle(x);
    assertArrayEquals(new long[] {3, 3}, ya.shape());
    assertArrayEquals(c.outputSingle(x).reshape(9).toFloatVector(), ya.reshape(9).toFloatVector());
    assertTrue(ya.amaxNumber().doubleValue() > 0);

    Map<String, InputPreProcessor> bad = new HashMap<>();
    bad.put("e", new CnnToFeedForwardPreProcessor(3, 3, 4));
    ComputationGraphConfiguration.GraphBuilder b2 = builder(false);
    b2.setInputPreProcessors(bad);
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, b2::build);
    assertTrue(ex.getMessage().contains("\"e\""), ex.getMessage());
  }

  @Test
  void graphLayersCountAndTheirParameters() {
    ComputationGraph g = new ComputationGraph(builder(false).build());
    assertEquals(5, g.getNumLayers()); // conv, bn, d, d2, out; the ElementWiseVertex is no layer
    assertThrows(IllegalStateException.class, () -> g.getLayer(0).numParams());
    g.init();
    long[] expected = {2 * 4 * 9 + 4, 4 * 4, 36 * 5 + 5, 5 * 5 + 5, 5 * 3 + 3}; // BN: gamma, beta, mean, var
    long sum = 0;
    for (int i = 0; i < expected.length; ++i) {
      assertEquals(expected[i], g.getLayer(i).numParams(), "layer " + i);
      sum += g.getLayer(i).numParams();
    }
    assertEquals(g.numParams(), sum);
    assertEquals(36 * 5 + 5, g.getLayer("d").numParams());
  }

  @Test
  void multiLayerNetworkLayerParameters() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).updater(new Sgd(0.1)).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(6).dropOut(0.5).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MSE).nIn(6).nOut(2).activation(Activation.IDENTITY).build())
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    assertEquals(4 * 6 + 6, net.getLayer(0).numParams());
    assertEquals(6 * 2 + 2, net.getLayer(1).numParams());
    assertEquals(net.numParams(), net.getLayer(0).numParams() + net.getLayer(1).numParams());
  }

  @Test
  void evaluativeListenerEvaluatesAGraphOnEitherIteratorKind() {
    List<DataSet> data = new ArrayList<>();
    List<org.nd4j.linalg.dataset.api.MultiDataSet> mds = new ArrayList<>();
    for (int b = 0; b < 3; ++b) {
      INDArray x = Nd4j.rand(6, 4).subi(0.5);
      INDArray y = Nd4j.zeros(6, 3);
      for (int r = 0; r < 6; ++r) {
        y.putScalar(r, (r + b) % 3, 1.0);
      }
      data.add(new DataSet(x, y));
      mds.add(new org.nd4j.linalg.dataset.MultiDataSet(x, y));
    }
    ComputationGraph g = new ComputationGraph(new NeuralNetConfiguration.Builder().seed(5).updater(new Sgd(0.1))
        .graphBuilder().addInputs("in")
        .addLayer("d", new DenseLayer.Builder().nIn(4).nOut(8).activation(Activation.TANH).build(), "in")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(8).nOut(3)
            .activation(Activation.SOFTMAX).build(), "d")
        .setOutputs("out").build());
    g.init();
    ListDataSetIterator<DataSet> it = new ListDataSetIterator<>(data, 6);
    Evaluation viaDs = new Evaluation();
    Evaluation viaMds = new Evaluation();
    g.setListeners(new EvaluativeListener(it, 1, InvocationType.EPOCH_END, viaDs),
        new EvaluativeListener(listIterator(mds), 1, InvocationType.EPOCH_END, viaMds));
    g.fit(it);
    Evaluation direct = g.evaluate(it);
    assertEquals(18, viaDs.getNumRowCounter()); // each listener evaluated once, at the epoch's end, all 18 rows
    assertEquals(18, viaMds.getNumRowCounter());
    assertEquals(direct, viaMds);
    assertEquals(direct.stats(), viaDs.stats());
    assertEquals(direct.stats(), viaMds.stats());
    assertEquals(direct.accuracy(), viaMds.accuracy());

    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().list()
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(4).nOut(3).activation(Activation.SOFTMAX).build())
        .build());
    net.init();
    net.setListeners(new EvaluativeListener(listIterator(mds), 1));
    assertThrows(UnsupportedOperationException.class, () -> net.fit(it));
  }

  private static MultiDataSetIterator listIterator(List<org.nd4j.linalg.dataset.api.MultiDataSet> list) {
    return new ComputationGraphDropInTest.ListMdsIterator(list);
  }
}
