package org.ndrt.dl4j;

import static org.ndrt.dl4j.Dl4jJsonValues.CLASS;
import static org.ndrt.dl4j.Dl4jJsonValues.get;
import static org.ndrt.dl4j.Dl4jJsonValues.obj;
import static org.ndrt.dl4j.Dl4jJsonValues.set;

import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.distribution.Distribution;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.NoParamLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.ndrt.nn.conf.Json;

/**
 * One layer of Deeplearning4j's configuration JSON, both ways: the fields Deeplearning4j 1.0.0-M2.1
 * writes for DenseLayer, OutputLayer, RnnOutputLayer, LossLayer, ConvolutionLayer, Convolution1DLayer,
 * SubsamplingLayer, BatchNormalization, LSTM, EmbeddingLayer, EmbeddingSequenceLayer,
 * GlobalPoolingLayer, DropoutLayer, ActivationLayer and CenterLossOutputLayer (the drop-in's classes
 * have Deeplearning4j's names). Settings Deeplearning4j writes that the drop-in does not model (cuDNN
 * modes, helper fallbacks) are written with Deeplearning4j's defaults and ignored when read; those
 * that would change what the network computes (constraints, weight noise, layer norm) are refused when
 * set.
 */
final class Dl4jJsonLayers {
  private Dl4jJsonLayers() {}

  /** Keys read into the drop-in's field of another name. */
  private static final String[][] RENAMED = {{"nin", "nIn"}, {"nout", "nOut"}, {"cnn2dDataFormat", "dataFormat"},
    {"minibatch", "isMinibatch"}};
  /** Keys handled by {@link #read} itself or written with Deeplearning4j's fixed defaults. */
  private static final Set<String> HANDLED = new HashSet<>(Arrays.asList(CLASS, "layerName", "idropout", "activationFn",
      "weightInitFn", "regularization", "regularizationBias", "iupdater", "biasUpdater", "lossFn", "gateActivationFn",
      "gradientNormalization", "gradientNormalizationThreshold", "biasInit", "kernelSize", "stride", "padding",
      "dilation", "inputLength", "cudnnAlgoMode", "cudnnAllowFallback", "cudnnBwdDataAlgo", "cudnnBwdFilterAlgo",
      "cudnnFwdAlgo", "helperAllowFallback", "timeDistributedFormat", "cnn2DFormat", "outputFormat",
      "avgPoolIncludePadInDivisor", "useLogStd", "pzxActivationFn", "outputDistribution", "lossFunction",
      "visibleBiasInit"));

  /**
   * The layer's JSON object. {@code nIn} / {@code nOut}: the sizes to write (the layer's own, or what
   * the input type gives); {@code recurrentIn}: a feed-forward layer seeing sequences (Deeplearning4j
   * then records their NCW format); {@code wdTwice}: the weight decay came from the network.
   */
  static Map<String, Object> write(Layer l, String name, long nIn, long nOut, boolean recurrentIn, boolean wdTwice) {
    Map<String, Object> m = obj(l.getClass().getName());
    m.put("layerName", name);
    m.put("idropout", Dl4jJsonValues.dropout(l.getDropOut()));
    m.put("constraints", null);
    if (l instanceof BaseLayer) {
      BaseLayer b = (BaseLayer) l;
      m.put("activationFn", Dl4jJsonValues.activation((Activation) get(b, "activation"), (IActivation) get(b, "activationFn")));
      m.put("biasInit", zeroIfNaN(b.getBiasInit()));
      m.put("biasUpdater", Dl4jJsonValues.bean(b.getBiasUpdater()));
      m.put("gainInit", 1.0);
      GradientNormalization gn = b.getGradientNormalization();
      m.put("gradientNormalization", (gn == null ? GradientNormalization.None : gn).name());
      double gnt = b.getGradientNormalizationThreshold();
      m.put("gradientNormalizationThreshold", Double.isNaN(gnt) ? 1.0 : gnt);
      m.put("iupdater", Dl4jJsonValues.bean(b.getIUpdater()));
      m.put("regularization", Dl4jJsonValues.regularization(zeroIfNaN(b.getL1()), zeroIfNaN(b.getL2()),
          zeroIfNaN(b.getWeightDecay()), wdTwice));
      m.put("regularizationBias", Dl4jJsonValues.regularization(zeroIfNaN((Double) get(b, "l1Bias")),
          zeroIfNaN((Double) get(b, "l2Bias")), zeroIfNaN((Double) get(b, "weightDecayBias")), false));
      m.put("weightInitFn", Dl4jJsonValues.weightInit(b.getWeightInit(), (Distribution) get(b, "dist")));
      m.put("weightNoise", null);
    } else {
      // Deeplearning4j's NoParamLayer: no gradient normalisation.
      m.put("gradientNormalization", GradientNormalization.None.name());
      m.put("gradientNormalizationThreshold", 0.0);
    }
    if (l instanceof FeedForwardLayer) {
      m.put("nin", nIn);
      m.put("nout", nOut);
      m.put("timeDistributedFormat", recurrentIn ? "NCW" : null);
    }
    if (l instanceof DenseLayer) {
      m.put("hasBias", get(l, "hasBias"));
      m.put("hasLayerNorm", get(l, "hasLayerNorm"));
    } else if (l instanceof BaseOutputLayer) {
      m.put("hasBias", get(l, "hasBias"));
      m.put("lossFn", Dl4jJsonValues.bean(((BaseOutputLayer) l).getLossFn()));
      for (String k : new String[] {"alpha", "lambda", "gradientCheck"}) {
        if (Dl4jJsonValues.field(l.getClass(), k) != null) { // CenterLossOutputLayer
          m.put(k, get(l, k));
        }
      }
    } else if (Dl4jJsonValues.field(l.getClass(), "lossFn") != null) { // LossLayer
      m.put("lossFn", Dl4jJsonValues.bean((ILossFunction) get(l, "lossFn")));
    }
    if (l instanceof RnnOutputLayer || l instanceof LSTM || l instanceof Convolution1DLayer) {
      Object f = get(l, "rnnDataFormat");
      m.put("rnnDataFormat", f == null ? null : f.toString());
    }
    if (l instanceof ConvolutionLayer) {
      convolution(m, (int[]) get(l, "kernelSize"), (int[]) get(l, "stride"), (int[]) get(l, "padding"),
          (int[]) get(l, "dilation"), get(l, "dataFormat"), get(l, "convolutionMode"), get(l, "hasBias"));
    } else if (l instanceof Convolution1DLayer) {
      convolution(m, pair(get(l, "kernelSize")), pair(get(l, "stride")), pair(get(l, "padding")),
          pair(get(l, "dilation")), "NCHW", get(l, "convolutionMode"), get(l, "hasBias"));
    } else if (l instanceof SubsamplingLayer) {
      m.put("avgPoolIncludePadInDivisor", false);
      m.put("cnn2dDataFormat", "NCHW");
      m.put("convolutionMode", String.valueOf(get(l, "convolutionMode")));
      m.put("cudnnAllowFallback", true);
      m.put("dilation", Json.list((int[]) get(l, "dilation")));
      m.put("eps", 1e-8);
      m.put("kernelSize", Json.list((int[]) get(l, "kernelSize")));
      m.put("padding", Json.list((int[]) get(l, "padding")));
      m.put("pnorm", 0);
      m.put("poolingType", String.valueOf(get(l, "poolingType")));
      m.put("stride", Json.list((int[]) get(l, "stride")));
    } else if (l instanceof BatchNormalization) {
      m.put("beta", get(l, "beta"));
      m.put("cnn2DFormat", "NCHW");
      m.put("cudnnAllowFallback", true);
      m.put("decay", get(l, "decay"));
      m.put("eps", get(l, "eps"));
      m.put("gamma", get(l, "gamma"));
      m.put("lockGammaBeta", get(l, "lockGammaBeta"));
      m.put("minibatch", get(l, "isMinibatch"));
      m.put("useLogStd", true);
    } else if (l instanceof LSTM) {
      m.put("forgetGateBiasInit", get(l, "forgetGateBiasInit"));
      m.put("gateActivationFn", Dl4jJsonValues.activation((Activation) get(l, "gateActivation"),
          (IActivation) get(l, "gateActivationFn")));
      m.put("helperAllowFallback", true);
      m.put("weightInitFnRecurrent", null);
    } else if (l instanceof EmbeddingSequenceLayer) {
      int len = (Integer) get(l, "inputLength");
      m.put("hasBias", get(l, "hasBias"));
      m.put("inferInputLength", get(l, "inferInputLength"));
      m.put("inputLength", len > 0 ? len : 1);
      m.put("outputFormat", "NCW");
    } else if (l instanceof EmbeddingLayer) {
      m.put("hasBias", Dl4jJsonValues.field(l.getClass(), "hasBias") != null ? get(l, "hasBias") : false);
    } else if (l instanceof GlobalPoolingLayer) {
      m.put("collapseDimensions", get(l, "collapseDimensions"));
      m.put("pnorm", get(l, "pnorm"));
      m.put("poolingDimensions", null);
      m.put("poolingType", String.valueOf(get(l, "poolingType")));
    } else if (isVae(l)) {
      vae(m, l);
    } else if (!(l instanceof BaseLayer) && !(l instanceof NoParamLayer)) {
      throw new UnsupportedOperationException("configuration JSON: " + l.getClass().getSimpleName() + " is not written in "
          + "Deeplearning4j's format by ndrt's Deeplearning4j drop-in");
    }
    return m;
  }

  private static boolean isVae(Layer l) {
    return l.getClass().getName().endsWith(".VariationalAutoencoder");
  }

  /** VariationalAutoencoder's own fields; a reconstruction distribution other than Bernoulli / Gaussian is refused. */
  private static void vae(Map<String, Object> m, Layer l) {
    m.put("decoderLayerSizes", Json.list((int[]) get(l, "decoderLayerSizes")));
    m.put("encoderLayerSizes", Json.list((int[]) get(l, "encoderLayerSizes")));
    m.put("lossFunction", "RECONSTRUCTION_CROSSENTROPY");
    m.put("numSamples", get(l, "numSamples"));
    m.put("pzxActivationFn", Dl4jJsonValues.activation((Activation) get(l, "pzxActivation"),
        (IActivation) get(l, "pzxActivationFn")));
    m.put("visibleBiasInit", 0.0);
    Object d = get(l, "outputDistribution");
    if (d == null) {
      m.put("outputDistribution", null);
      return;
    }
    Object a = Dl4jJsonValues.field(d.getClass(), "activation") != null ? get(d, "activation") : null;
    Object fn = Dl4jJsonValues.field(d.getClass(), "activationFn") != null ? get(d, "activationFn") : null;
    if (fn == null && a instanceof IActivation) {
      fn = a;
    }
    if (!(a instanceof Activation) && !(fn instanceof IActivation)) {
      throw new UnsupportedOperationException("configuration JSON: VariationalAutoencoder's " + d.getClass().getSimpleName()
          + " is not written in Deeplearning4j's format by ndrt's Deeplearning4j drop-in");
    }
    Map<String, Object> dm = obj(d.getClass().getName());
    dm.put("activationFn", Dl4jJsonValues.activation(fn instanceof IActivation ? null : (Activation) a, (IActivation) fn));
    m.put("outputDistribution", dm);
  }

  /** VariationalAutoencoder's activation and distribution read back (other keys by field name). */
  private static void readVae(Map<String, Object> m, Layer l) {
    Object a = Dl4jJsonValues.readActivation(m.get("pzxActivationFn"));
    set(l, "pzxActivation", a instanceof Activation ? a : null);
    set(l, "pzxActivationFn", a instanceof IActivation ? a : null);
    Object dj = m.get("outputDistribution");
    if (dj == null) {
      return;
    }
    Map<String, Object> dm = Json.obj(dj, "outputDistribution");
    Class<?> dc = Dl4jJsonValues.known(Json.str(dm, CLASS), Object.class);
    if (Dl4jJsonValues.field(dc, "activation") == null) {
      throw Dl4jJsonValues.unknown(dc.getName(), "ReconstructionDistribution");
    }
    Object d = Dl4jJsonValues.make(dc);
    Object da = Dl4jJsonValues.readActivation(dm.get("activationFn"));
    if (Dl4jJsonValues.field(dc, "activationFn") != null) {
      set(d, "activation", da instanceof Activation ? da : null);
      set(d, "activationFn", da instanceof IActivation ? da : null);
    } else {
      set(d, "activation", da);
    }
    set(l, "outputDistribution", d);
  }

  private static void convolution(Map<String, Object> m, int[] k, int[] s, int[] p, int[] d, Object format, Object mode,
      Object hasBias) {
    m.put("cnn2dDataFormat", String.valueOf(format));
    m.put("convolutionMode", String.valueOf(mode));
    m.put("cudnnAlgoMode", "PREFER_FASTEST");
    m.put("cudnnAllowFallback", true);
    m.put("cudnnBwdDataAlgo", null);
    m.put("cudnnBwdFilterAlgo", null);
    m.put("cudnnFwdAlgo", null);
    m.put("dilation", Json.list(d));
    m.put("hasBias", hasBias);
    m.put("kernelSize", Json.list(k));
    m.put("padding", Json.list(p));
    m.put("stride", Json.list(s));
  }

  /** Deeplearning4j keeps a 1-D layer's sizes as pairs of the same value. */
  private static int[] pair(Object v) {
    int x = (Integer) v;
    return new int[] {x, x};
  }

  private static double zeroIfNaN(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  // ------------------------------------------------------------------ reading

  /** A layer from its JSON object; an unknown "@class" is refused by name. */
  static Layer read(Map<String, Object> m) {
    Class<?> c = Dl4jJsonValues.known(Json.str(m, CLASS), Layer.class);
    Layer l = (Layer) Dl4jJsonValues.make(c);
    if (isVae(l)) {
      readVae(m, l);
    }
    l.setLayerName(Json.str(m, "layerName", null));
    l.setDropOut(Dl4jJsonValues.readDropout(m.get("idropout")));
    refuseSet(m, "constraints", null);
    refuseSet(m, "weightNoise", null);
    refuseSet(m, "weightInitFnRecurrent", null);
    refuseSet(m, "hasLayerNorm", false);
    refuseSet(m, "poolingDimensions", null);
    if (m.containsKey("gainInit") && Json.num(m, "gainInit") != 1.0) {
      throw refuse("gainInit " + m.get("gainInit"));
    }
    if (l instanceof BaseLayer) {
      Object act = Dl4jJsonValues.readActivation(m.get("activationFn"));
      set(l, "activation", act instanceof Activation ? act : null);
      set(l, "activationFn", act instanceof IActivation ? act : null);
      Object[] wi = Dl4jJsonValues.readWeightInit(m.get("weightInitFn"));
      set(l, "weightInit", (WeightInit) wi[0]);
      set(l, "dist", (Distribution) wi[1]);
      set(l, "biasInit", Json.num(m, "biasInit", 0));
      double[] r = Dl4jJsonValues.readRegularization(m.get("regularization"));
      set(l, "l1", r[0]);
      set(l, "l2", r[1]);
      set(l, "weightDecay", r[2]);
      double[] rb = Dl4jJsonValues.readRegularization(m.get("regularizationBias"));
      set(l, "l1Bias", rb[0]);
      set(l, "l2Bias", rb[1]);
      set(l, "weightDecayBias", rb[2]);
      set(l, "iUpdater", Dl4jJsonValues.readBean(m.get("iupdater"), IUpdater.class, "iupdater"));
      set(l, "biasUpdater", Dl4jJsonValues.readBean(m.get("biasUpdater"), IUpdater.class, "biasUpdater"));
      set(l, "gradientNormalization", GradientNormalization.valueOf(Json.str(m, "gradientNormalization", "None")));
      set(l, "gradientNormalizationThreshold", Json.num(m, "gradientNormalizationThreshold", 1.0));
    }
    if (m.get("lossFn") != null) {
      set(l, "lossFn", Dl4jJsonValues.readBean(m.get("lossFn"), ILossFunction.class, "lossFn"));
      if (Dl4jJsonValues.field(c, "lossFunction") != null) {
        set(l, "lossFunction", null);
      }
    }
    if (m.get("gateActivationFn") != null) {
      Object g = Dl4jJsonValues.readActivation(m.get("gateActivationFn"));
      set(l, "gateActivation", g instanceof Activation ? g : null);
      set(l, "gateActivationFn", g instanceof IActivation ? g : null);
    }
    for (String k : new String[] {"kernelSize", "stride", "padding", "dilation"}) {
      if (m.get(k) != null) {
        Field f = Dl4jJsonValues.field(c, k);
        int[] v = Json.ints(m, k);
        set(l, k, f.getType() == int.class ? (Object) v[0] : v);
      }
    }
    if (l instanceof EmbeddingSequenceLayer) {
      boolean infer = Json.bool(m, "inferInputLength", true);
      set(l, "inputLength", infer ? -1 : (int) Json.integer(m, "inputLength"));
    }
    if (l instanceof BatchNormalization) {
      set(l, "explicitActivation", false); // the network-wide activation Deeplearning4j wrote for it
    }
    for (Map.Entry<String, Object> e : m.entrySet()) {
      String k = e.getKey();
      if (HANDLED.contains(k) || e.getValue() == null) {
        continue;
      }
      for (String[] r : RENAMED) {
        k = r[0].equals(k) ? r[1] : k;
      }
      Field f = Dl4jJsonValues.field(c, k);
      if (f != null) {
        set(l, k, Dl4jJsonValues.convert(e.getValue(), f.getType(), k));
      }
    }
    return l;
  }

  private static void refuseSet(Map<String, Object> m, String key, Object dflt) {
    Object v = m.get(key);
    boolean empty = v == null || v instanceof List && ((List<?>) v).isEmpty();
    if (!empty && !v.equals(dflt)) {
      throw refuse(key + " " + v);
    }
  }

  private static UnsupportedOperationException refuse(String what) {
    return new UnsupportedOperationException("configuration JSON: " + what + " is not in ndrt's Deeplearning4j drop-in");
  }
}
