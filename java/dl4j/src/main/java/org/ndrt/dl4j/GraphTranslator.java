package org.ndrt.dl4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;

/**
 * Deeplearning4j's ComputationGraphConfiguration to org.ndrt.nn's, as {@link Translator} does for
 * networks: the same vertex names, in the same order (so the same seed gives the same parameters);
 * each layer through its {@code ndrtLayer()}, preceded by an org.ndrt.nn DropoutLayer vertex
 * "name-dropout" for its dropOut and a PreprocessorVertex "name-preProcessor" for its explicit
 * preprocessor; each other vertex through its {@code ndrtVertex()}. org.ndrt.nn's GraphBuilder checks
 * the graph (cycles, names, types), refusing it with an IllegalArgumentException naming the vertex.
 */
public final class GraphTranslator {
  private GraphTranslator() {}

  /** The org.ndrt.nn configuration of {@code c}. */
  public static org.ndrt.nn.conf.ComputationGraphConfiguration translate(ComputationGraphConfiguration c) {
    if (c.getBackpropType() != BackpropType.Standard) {
      throw new UnsupportedOperationException("ComputationGraph with backpropType " + c.getBackpropType() + ": ndrt's "
          + "graphs train by standard backpropagation only");
    }
    Map<String, GraphVertex> vertices = c.getVertices();
    List<Layer> layers = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, GraphVertex> e : vertices.entrySet()) {
      if (e.getValue() instanceof LayerVertex) {
        layers.add(((LayerVertex) e.getValue()).getLayerConf().getLayer());
        names.add("vertex \"" + e.getKey() + "\"");
      }
    }
    NeuralNetConfiguration first = c.getDefaultConfiguration();
    org.ndrt.nn.conf.ComputationGraphConfiguration.GraphBuilder g = Translator.settings(first, layers, names,
        c.getIUpdater(), c.getL2(), c.getWeightDecay(), c.getDataType()).graphBuilder();
    g.addInputs(c.getNetworkInputs());
    List<org.ndrt.nn.conf.InputType> implied = new ArrayList<>();  // inputs' types when a vertex goes before a first layer
    boolean needImplied = false;
    for (Map.Entry<String, GraphVertex> e : vertices.entrySet()) {
      String name = e.getKey();
      List<String> in = c.getVertexInputs().get(name);
      String[] inputs = in == null ? new String[0] : in.toArray(new String[0]);
      if (!(e.getValue() instanceof LayerVertex)) {
        g.addVertex(name, vertex(name, e.getValue()), inputs);
        continue;
      }
      LayerVertex lv = (LayerVertex) e.getValue();
      Layer l = lv.getLayerConf().getLayer();
      boolean atInput = inputs.length == 1 && c.getNetworkInputs().contains(inputs[0]);
      org.ndrt.nn.conf.layers.Layer nl = ndrtLayer(name, l);
      if (lv.getPreProcessor() != null) {
        g.addVertex(name + "-preProcessor", preProcessor(lv.getPreProcessor(), "vertex \"" + name + "\""), inputs);
        inputs = new String[] {name + "-preProcessor"};
      }
      org.ndrt.nn.conf.layers.Layer drop = Translator.dropoutBefore(l);
      if (drop != null) {
        if (atInput && lv.getPreProcessor() == null) {
          needImplied = true;
          implied.add(impliedOrNull(nl));
        }
        g.addLayer(name + "-dropout", drop, inputs);
        inputs = new String[] {name + "-dropout"};
      }
      g.addLayer(name, nl, inputs);
    }
    g.setOutputs(c.getNetworkOutputs().toArray(new String[0]));
    List<InputType> types = c.getNetworkInputTypes();
    if (types != null) {
      org.ndrt.nn.conf.InputType[] t = new org.ndrt.nn.conf.InputType[types.size()];
      for (int i = 0; i < t.length; ++i) {
        t[i] = types.get(i).toNdrt();
      }
      g.setInputTypes(t);
    } else if (needImplied && implied.size() == c.getNetworkInputs().size() && !implied.contains(null)) {
      // A layer's own dropout comes first: the input is what the layer's nIn implies, as in Deeplearning4j.
      g.setInputTypes(implied.toArray(new org.ndrt.nn.conf.InputType[0]));
    }
    return g.build();
  }

  private static org.ndrt.nn.conf.InputType impliedOrNull(org.ndrt.nn.conf.layers.Layer l) {
    try {
      return l.impliedInput();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static org.ndrt.nn.conf.layers.Layer ndrtLayer(String name, Layer l) {
    try {
      return l.ndrtLayer();
    } catch (UnsupportedOperationException e) {
      throw new UnsupportedOperationException("vertex \"" + name + "\": " + e.getMessage(), e);
    }
  }

  private static org.ndrt.nn.conf.graph.GraphVertex vertex(String name, GraphVertex v) {
    try {
      return v.ndrtVertex();
    } catch (UnsupportedOperationException e) {
      throw new UnsupportedOperationException("vertex \"" + name + "\": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("vertex \"" + name + "\": " + e.getMessage(), e);
    }
  }

  /** org.ndrt.nn's PreprocessorVertex for the two preprocessors it has; others refused naming {@code where}. */
  public static org.ndrt.nn.conf.graph.GraphVertex preProcessor(InputPreProcessor p, String where) {
    if (p instanceof CnnToFeedForwardPreProcessor) {
      return org.ndrt.nn.conf.graph.PreprocessorVertex.cnnToFeedForward();
    }
    if (p instanceof FeedForwardToCnnPreProcessor) {
      long[] s = (long[]) Dl4jJsonValues.get(p, "shape");
      if (s.length != 3) {
        throw new IllegalArgumentException(where + ": FeedForwardToCnnPreProcessor needs (height, width, channels), has "
            + s.length + " values");
      }
      return org.ndrt.nn.conf.graph.PreprocessorVertex.feedForwardToCnn(s[0], s[1], s[2]);
    }
    throw new UnsupportedOperationException(where + ": " + (p == null ? "a null preprocessor" : p.getClass().getSimpleName())
        + " is not in ndrt's Deeplearning4j drop-in (CnnToFeedForwardPreProcessor and FeedForwardToCnnPreProcessor are)");
  }

  /**
   * Checks {@code c} as Deeplearning4j's build() does, through org.ndrt.nn's GraphBuilder (an
   * IllegalArgumentException naming the vertex), and returns org.ndrt.nn's configuration; null where a
   * setting org.ndrt.nn lacks stops the translation (refused at init instead, as for networks).
   */
  public static org.ndrt.nn.conf.ComputationGraphConfiguration check(ComputationGraphConfiguration c) {
    try {
      return translate(c);
    } catch (UnsupportedOperationException e) {
      return null;
    }
  }

  /**
   * Each layer's nIn from org.ndrt.nn's inference where it was not given (Deeplearning4j's build() sets
   * them from the input types too), so the JSON states them.
   */
  public static void fillNIn(ComputationGraphConfiguration c, org.ndrt.nn.conf.ComputationGraphConfiguration n) {
    for (Map.Entry<String, GraphVertex> e : c.getVertices().entrySet()) {
      if (e.getValue() instanceof LayerVertex) {
        Layer l = ((LayerVertex) e.getValue()).getLayerConf().getLayer();
        if (l instanceof FeedForwardLayer && !(l instanceof DropoutLayer) && ((FeedForwardLayer) l).getNIn() <= 0) {
          long nIn = n.node(e.getKey()).layer.nIn();
          if (nIn > 0) {
            ((FeedForwardLayer) l).setNIn(nIn);
          }
        }
      }
    }
  }
}
