package org.ndrt.dl4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.deeplearning4j.nn.api.OptimizationAlgorithm;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToRnnPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.RnnToFeedForwardPreProcessor;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.ndrt.DType;

/**
 * Deeplearning4j's MultiLayerConfiguration to org.ndrt.nn's, the one place the drop-in's network is
 * defined: each layer through its {@code ndrtLayer()}, a layer's dropOut as an org.ndrt.nn DropoutLayer
 * before it, and the updater (one per network in org.ndrt.nn) from the layers, which must agree; each
 * layer carries its own l1 / l2 / weight decay (the network's are the first layer's, the common case).
 */
public final class Translator {
  private Translator() {}

  /** org.ndrt.nn's configuration and, per Deeplearning4j layer, the index of its org.ndrt.nn layer. */
  public static final class Result {
    public final org.ndrt.nn.conf.MultiLayerConfiguration conf;
    public final int[] ndrtIndex;

    Result(org.ndrt.nn.conf.MultiLayerConfiguration conf, int[] ndrtIndex) {
      this.conf = conf;
      this.ndrtIndex = ndrtIndex;
    }
  }

  public static Result translate(MultiLayerConfiguration c) {
    List<NeuralNetConfiguration> confs = c.getConfs();
    boolean embedSequences = embeddingBetweenRnnPreProcessors(c);
    for (int i = embedSequences ? 2 : 0; i < c.getInputPreProcessors().size(); ++i) {
      if (c.getInputPreProcessors().get(i) != null) {
        throw new UnsupportedOperationException("inputPreProcessor(" + i + ", " + c.getInputPreProcessors().get(i)
            .getClass().getSimpleName() + "): explicit preprocessors are not in ndrt's Deeplearning4j drop-in "
            + "(org.ndrt.nn reshapes between layers itself, from setInputType)");
      }
    }
    NeuralNetConfiguration first = confs.get(0);
    List<Layer> layers = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < confs.size(); ++i) {
      layers.add(confs.get(i).getLayer());
      names.add("layer " + i);
    }
    org.ndrt.nn.conf.NeuralNetConfiguration.Builder g = settings(first, layers, names, c.getIUpdater(), c.getL2(),
        c.getWeightDecay(), c.getDataType());
    org.ndrt.nn.conf.NeuralNetConfiguration.ListBuilder lb = g.list();
    int[] index = new int[confs.size()];
    int n = 0;
    org.ndrt.nn.conf.InputType firstInput = null;
    for (int i = 0; i < confs.size(); ++i) {
      Layer l = confs.get(i).getLayer();
      org.ndrt.nn.conf.layers.Layer drop = dropoutBefore(l);
      if (drop != null) {
        lb.layer(drop);
        ++n;
      }
      org.ndrt.nn.conf.layers.Layer nl = i == 0 && embedSequences ? ((EmbeddingLayer) l).ndrtSequenceLayer() : l.ndrtLayer();
      if (n == 1 && i == 0 && c.getInputType() == null) {
        // A first layer's own dropout came first: the input is what the layer's nIn implies, as in Deeplearning4j.
        firstInput = nl.impliedInput();
      }
      lb.layer(nl);
      index[i] = n++;
    }
    if (c.getInputType() != null) {
      lb.setInputType(c.getInputType().toNdrt());
    } else if (firstInput != null) {
      lb.setInputType(firstInput);
    }
    lb.backpropType(org.ndrt.nn.conf.BackpropType.valueOf(c.getBackpropType().name()));
    lb.tBPTTForwardLength(c.getTbpttFwdLength()).tBPTTBackwardLength(c.getTbpttBackLength());
    return new Result(lb.build(), index);
  }

  /**
   * org.ndrt.nn's network-wide settings from the layers (with parameters) of a network or graph: their
   * updater (one per network in org.ndrt.nn: they must agree), the first one's l2 / weight decay (each
   * layer also carries its own), else the network's {@code updater}, {@code l2}, {@code wd}.
   * {@code names} say which layer is which in refusals.
   */
  static org.ndrt.nn.conf.NeuralNetConfiguration.Builder settings(NeuralNetConfiguration first, List<Layer> layers,
      List<String> names, IUpdater updater, double l2, double wd, DataType dataType) {
    if (first.getOptimizationAlgo() != OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT) {
      throw new UnsupportedOperationException("optimizationAlgo(" + first.getOptimizationAlgo() + "): ndrt trains by "
          + "STOCHASTIC_GRADIENT_DESCENT with the updater");
    }
    String who = null;
    for (int i = 0; i < layers.size(); ++i) {
      Layer l = layers.get(i);
      if (!(l instanceof BaseLayer) || l instanceof org.deeplearning4j.nn.conf.layers.DropoutLayer) {
        continue;
      }
      BaseLayer b = (BaseLayer) l;
      String me = names.get(i) + " (" + l.getClass().getSimpleName() + ")";
      if (who == null) {
        updater = b.getIUpdater();
        l2 = b.getL2();
        wd = b.getWeightDecay();
        who = me;
        continue;
      }
      agree(Objects.equals(updater, b.getIUpdater()), "updater", who, updater, me, b.getIUpdater());
    }
    return new org.ndrt.nn.conf.NeuralNetConfiguration.Builder().seed(first.getSeed()).updater(updater.toNdrt()).l2(l2)
        .weightDecay(wd).dataType(dtype(dataType)).miniBatch(first.isMiniBatch());
  }

  /**
   * The org.ndrt.nn DropoutLayer that goes before {@code l} for its dropOut (null: none): Deeplearning4j's
   * dropOut drops the layer's input (inverted dropout), the same as a dropout layer before it.
   */
  static org.ndrt.nn.conf.layers.Layer dropoutBefore(Layer l) {
    double keep = l.getDropOut();
    if (!(l instanceof org.deeplearning4j.nn.conf.layers.DropoutLayer) && keep > 0 && keep < 1) {
      return new org.ndrt.nn.conf.layers.DropoutLayer.Builder(1 - keep).build();
    }
    return null;
  }

  /**
   * Deeplearning4j's RNNEmbedding pattern: an EmbeddingLayer first, given [N, 1, T] sequences through
   * RnnToFeedForwardPreProcessor and handing [N, nOut, T] on through FeedForwardToRnnPreProcessor: the
   * arithmetic of an EmbeddingSequenceLayer, which org.ndrt.nn has.
   */
  private static boolean embeddingBetweenRnnPreProcessors(MultiLayerConfiguration c) {
    return c.getConfs().size() > 1 && c.getConf(0).getLayer() instanceof EmbeddingLayer
        && c.getInputPreProcess(0) instanceof RnnToFeedForwardPreProcessor
        && c.getInputPreProcess(1) instanceof FeedForwardToRnnPreProcessor;
  }

  private static void agree(boolean same, String what, String first, Object a, String other, Object b) {
    if (!same) {
      throw new UnsupportedOperationException("per-layer " + what + ": " + first + " has " + a + ", " + other + " has " + b
          + "; org.ndrt.nn has one " + what + " per network (set it on NeuralNetConfiguration.Builder)");
    }
  }

  private static DType dtype(DataType t) {
    switch (t) {
      case FLOAT: return DType.F32;
      case HALF: return DType.F16;
      case BFLOAT16: return DType.BF16;
      default:
        throw new UnsupportedOperationException("dataType(" + t + "): ndrt's networks train in FLOAT, or HALF / "
            + "BFLOAT16 mixed precision");
    }
  }
}
