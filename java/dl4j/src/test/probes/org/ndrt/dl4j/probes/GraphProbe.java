package org.ndrt.dl4j.probes;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.graph.PreprocessorVertex;
import org.deeplearning4j.nn.conf.graph.ScaleVertex;
import org.deeplearning4j.nn.conf.graph.SubsetVertex;
import org.deeplearning4j.nn.conf.graph.rnn.DuplicateToTimeSeriesVertex;
import org.deeplearning4j.nn.conf.graph.rnn.LastTimeStepVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * ComputationGraphConfiguration built by the GraphBuilder against Deeplearning4j 1.0.0-M2.1: each
 * vertex's kind, inputs (a layer given two inputs gets a "-merge" MergeVertex), nIn set at build from
 * the input types, explicit preprocessors; then the graph's parameter count and output shapes.
 * Exchange pass: each side reads the other's toJson() (the graphs whose input types the layers' nIn
 * imply) and prints the same.
 */
public class GraphProbe {
  private static NeuralNetConfiguration.Builder global() {
    return new NeuralNetConfiguration.Builder().seed(1).updater(new Adam(0.01));
  }

  private static DenseLayer dense(int nOut) {
    return new DenseLayer.Builder().nOut(nOut).activation(Activation.TANH).build();
  }

  public static void main(String[] args) throws Exception {
    String read = System.getenv("NDRT_PROBE_READ");
    if (read != null) {
      for (String name : new TreeSet<>(Arrays.asList(new File(read).list()))) {
        String json = new String(Files.readAllBytes(new File(read, name).toPath()), StandardCharsets.UTF_8);
        show(name + " read", ComputationGraphConfiguration.fromJson(json), inputs(name.replace(".json", "")), null);
      }
      return;
    }
    show("twoInput", global().graphBuilder().addInputs("a", "b")
        .addLayer("da", new DenseLayer.Builder().nOut(8).activation(Activation.RELU).build(), "a")
        .addLayer("db", dense(6), "b")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build(),
            "da", "db")
        .setOutputs("out").setInputTypes(InputType.feedForward(4), InputType.feedForward(3)).build(),
        inputs("twoInput"), "twoInput");
    show("residual", global().graphBuilder().addInputs("in")
        .addLayer("d1", new DenseLayer.Builder().nIn(5).nOut(7).activation(Activation.TANH).build(), "in")
        .addLayer("d2", new DenseLayer.Builder().nOut(5).activation(Activation.IDENTITY).build(), "d1")
        .addVertex("res", new ElementWiseVertex(ElementWiseVertex.Op.Add), "in", "d2")
        .addVertex("half", new ScaleVertex(0.5), "res")
        .addVertex("side", new SubsetVertex(0, 2), "d1")
        .addVertex("cat", new MergeVertex(), "half", "side")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build(), "cat")
        .setOutputs("out").setInputTypes(InputType.feedForward(5)).build(), inputs("residual"), "residual");
    show("recurrent", global().graphBuilder().addInputs("seq")
        .addLayer("lstm", new LSTM.Builder().nOut(5).activation(Activation.TANH).build(), "seq")
        .addVertex("last", new LastTimeStepVertex("seq"), "lstm")
        .addLayer("summary", dense(3), "last")
        .addVertex("dup", new DuplicateToTimeSeriesVertex("seq"), "summary")
        .addLayer("o", new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build(),
            "lstm", "dup")
        .setOutputs("o").setInputTypes(InputType.recurrent(3)).build(), inputs("recurrent"), "recurrent");
    show("conv", global().graphBuilder().addInputs("img")
        .addVertex("toCnn", new PreprocessorVertex(new FeedForwardToCnnPreProcessor(6, 6, 1)), "img")
        .addLayer("conv", new ConvolutionLayer.Builder(3, 3).nOut(2).activation(Activation.RELU).build(), "toCnn")
        .addLayer("d", dense(4), new CnnToFeedForwardPreProcessor(4, 4, 2), "conv")
        .addLayer("o", new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build(), "d")
        .setOutputs("o").setInputTypes(InputType.feedForward(36)).build(), inputs("conv"), null);
  }

  private static INDArray[] inputs(String graph) {
    switch (graph) {
      case "twoInput": return new INDArray[] {Nd4j.ones(2, 4), Nd4j.ones(2, 3)};
      case "residual": return new INDArray[] {Nd4j.ones(2, 5)};
      case "recurrent": return new INDArray[] {Nd4j.ones(2, 3, 4)};
      default: return new INDArray[] {Nd4j.ones(2, 36)};
    }
  }

  private static void show(String name, ComputationGraphConfiguration c, INDArray[] in, String save) throws Exception {
    System.out.println(name + ": inputs " + c.getNetworkInputs() + " outputs " + c.getNetworkOutputs());
    for (String v : new TreeSet<>(c.getVertices().keySet())) {
      GraphVertex gv = c.getVertices().get(v);
      StringBuilder s = new StringBuilder("  " + v + " ");
      if (gv instanceof LayerVertex) {
        Layer l = ((LayerVertex) gv).getLayerConf().getLayer();
        s.append(l.getClass().getSimpleName()).append(" nIn ")
            .append(l instanceof FeedForwardLayer ? Long.toString(((FeedForwardLayer) l).getNIn()) : "-")
            .append(" preProcessor ").append(((LayerVertex) gv).getPreProcessor() == null ? "none"
                : ((LayerVertex) gv).getPreProcessor().getClass().getSimpleName());
      } else {
        s.append(gv.getClass().getSimpleName());
      }
      List<String> inputs = c.getVertexInputs().get(v);
      System.out.println(s.append(" takes ").append(inputs));
    }
    ComputationGraph g = new ComputationGraph(c);
    g.init();
    System.out.println("  parameters " + g.numParams() + ", order " + c.getTopologicalOrderStr());
    for (INDArray o : g.output(in)) {
      System.out.println("  output shape " + Arrays.toString(o.shape()));
    }
    String dir = System.getenv("NDRT_PROBE_DIR");
    if (dir != null && save != null) {
      File d = new File(dir, System.getenv("NDRT_PROBE_SIDE"));
      d.mkdirs();
      Files.write(new File(d, save + ".json").toPath(), c.toJson().getBytes(StandardCharsets.UTF_8));
    }
  }
}
