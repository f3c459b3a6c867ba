package org.ndrt.dl4j;

import static org.ndrt.dl4j.Dl4jJsonValues.CLASS;
import static org.ndrt.dl4j.Dl4jJsonValues.get;
import static org.ndrt.dl4j.Dl4jJsonValues.obj;
import static org.ndrt.dl4j.Dl4jJsonValues.set;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.deeplearning4j.nn.api.OptimizationAlgorithm;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BaseRecurrentLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.variational.VariationalAutoencoder;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.CnnToRnnPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToRnnPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.RnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.ndrt.nn.conf.Json;

/**
 * MultiLayerConfiguration and NeuralNetConfiguration as Deeplearning4j 1.0.0-M2.1's JSON (what its
 * toJson writes and its fromJson reads). Deeplearning4j stores no input type: its list builder writes
 * each layer's nIn and the preprocessors between layers. The writer gets both from org.ndrt.nn's
 * shape inference (the drop-in's network configuration, {@link Translator}); the reader turns a first
 * FeedForwardToCnnPreProcessor back into InputType.convolutionalFlat and keeps the other standard
 * preprocessors as implied (org.ndrt.nn reshapes there itself), so a configuration read builds a
 * network. Text with a top-level "@class" is the drop-in's earlier own format ({@link ConfJson}).
 */
public final class Dl4jJson {
  private static final String PRE = "org.deeplearning4j.nn.conf.preprocessor.";

  private Dl4jJson() {}

  // ------------------------------------------------------------------ writing

  public static String write(MultiLayerConfiguration c) {
    List<NeuralNetConfiguration> confs = c.getConfs();
    Translator.Result r = typed(c) ? shapes(c) : null;
    @SuppressWarnings("unchecked")
    List<InputPreProcessor> implied = (List<InputPreProcessor>) get(c, "impliedPreProcessors");
    Map<String, Object> pre = new TreeMap<>(Comparator.comparingInt(Integer::parseInt));
    List<Object> out = new ArrayList<>();
    boolean pooledSequences = false;
    for (int i = 0; i < confs.size(); ++i) {
      Layer l = confs.get(i).getLayer();
      org.ndrt.nn.conf.InputType in = r == null ? null : r.conf.layerInput(r.ndrtIndex[i]);
      if (in != null && pooledSequences) {
        // Deeplearning4j types a global pooling of sequences as sequences still (one step): it puts
        // RnnToFeedForward after it.
        in = org.ndrt.nn.conf.InputType.recurrent(in.size);
      }
      pooledSequences = in != null && l instanceof GlobalPoolingLayer && in.kind == org.ndrt.nn.conf.InputType.Kind.RECURRENT;
      InputPreProcessor p = c.getInputPreProcess(i);
      if (p == null && implied != null) {
        p = i < implied.size() ? implied.get(i) : null;
      } else if (p == null && in != null) {
        // Deeplearning4j's list builder adds them from the input type, given or implied by the first layer's nIn.
        p = inferPreProcessor(l, in);
      }
      if (p != null) {
        pre.put(Integer.toString(i), preProcessor(p));
      }
      long nIn = 0;
      long nOut = 0;
      if (l instanceof FeedForwardLayer) {
        FeedForwardLayer f = (FeedForwardLayer) l;
        nIn = f.getNIn() > 0 || in == null || l instanceof DropoutLayer ? f.getNIn() : inferNIn(l, in);
        if (l instanceof EmbeddingSequenceLayer && r != null) {
          nIn = r.conf.layers().get(r.ndrtIndex[i]).nIn();  // recurrent(vocabulary) sets it, as in Deeplearning4j
        }
        nOut = f.getNOut() > 0 || !(l instanceof BatchNormalization) ? f.getNOut() : nIn;
      }
      boolean recurrentIn = in != null && in.kind == org.ndrt.nn.conf.InputType.Kind.RECURRENT && kind(l) == 'F';
      boolean wdTwice = l instanceof BaseLayer && c.getWeightDecay() > 0
          && ((BaseLayer) l).getWeightDecay() == c.getWeightDecay();
      String name = l.getLayerName() != null ? l.getLayerName() : "layer" + i;
      Map<String, Object> lm = Dl4jJsonLayers.write(l, name, nIn, nOut, recurrentIn, wdTwice);
      if (l instanceof RnnOutputLayer && r != null && lm.get("rnnDataFormat") == null) {
        lm.put("rnnDataFormat", "NCW"); // Deeplearning4j's list builder sets it from the (recurrent) input type
      }
      out.add(conf(confs.get(i), lm, c.getDataType()));
    }
    Map<String, Object> m = obj(null);
    m.put("backpropType", c.getBackpropType().name());
    m.put("cacheMode", "NONE");
    m.put("confs", out);
    m.put("dataType", c.getDataType().name());
    m.put("epochCount", c.getEpochCount());
    m.put("inferenceWorkspaceMode", "ENABLED");
    m.put("inputPreProcessors", pre);
    m.put("iterationCount", c.getIterationCount());
    m.put("tbpttBackLength", c.getTbpttBackLength());
    m.put("tbpttFwdLength", c.getTbpttFwdLength());
    m.put("trainingWorkspaceMode", "ENABLED");
    m.put("validateOutputLayerConfig", true);
    return Json.write(m);
  }

  /**
   * Sets each layer's nIn as Deeplearning4j's list builder does at build(), when it knows the input type
   * ({@link #typed}): from the type org.ndrt.nn's shape inference gives the layer, replacing a given nIn
   * as Deeplearning4j does (so shapes are inferred with given nIns cleared, but for a first layer's nIn
   * that implies the input type). Left as given where org.ndrt.nn cannot build the network.
   */
  public static void fillNIn(MultiLayerConfiguration c) {
    if (!typed(c)) {
      return;
    }
    // A first layer's nIn that implies the input type is its own; before an explicit preprocessor (the
    // embedding-of-sequences pattern) the input type is not what the layer sees.
    int from = c.getInputType() != null && c.getInputPreProcess(0) == null ? 0 : 1;
    MultiLayerConfiguration cleared;
    try {
      cleared = c.clone();
    } catch (RuntimeException e) {
      return; // a value the JSON form cannot copy (e.g. a program's own weight init class): nIn as given
    }
    for (int i = from; i < cleared.getConfs().size(); ++i) {
      Layer l = cleared.getConf(i).getLayer();
      if (l instanceof FeedForwardLayer && !(l instanceof DropoutLayer)) {
        ((FeedForwardLayer) l).setNIn(0);
      }
    }
    Translator.Result r = shapes(cleared);
    if (r == null) {
      r = shapes(c);  // a layer org.ndrt.nn does not size from its input (e.g. embedding indices) needs its nIn
    }
    for (int i = from; r != null && i < c.getConfs().size(); ++i) {
      Layer l = c.getConf(i).getLayer();
      if (l instanceof FeedForwardLayer && !(l instanceof DropoutLayer)) {
        org.ndrt.nn.conf.InputType in = r.conf.layerInput(r.ndrtIndex[i]);
        long nIn = l instanceof EmbeddingSequenceLayer ? r.conf.layers().get(r.ndrtIndex[i]).nIn()
            : in == null ? 0 : inferNIn(l, in);
        if (nIn > 0) {
          ((FeedForwardLayer) l).setNIn(nIn);
        }
      }
    }
  }

  /**
   * Whether Deeplearning4j's list builder knows the input type: given, or implied by a first recurrent,
   * dense, embedding or output layer's nIn. Only then does it set nIn and add preprocessors.
   */
  private static boolean typed(MultiLayerConfiguration c) {
    Layer first = c.getConf(0).getLayer();
    boolean implies = first instanceof BaseRecurrentLayer || first instanceof DenseLayer || first instanceof EmbeddingLayer
        || first instanceof OutputLayer;
    return c.getInputType() != null || implies && ((FeedForwardLayer) first).getNIn() > 0;
  }

  /**
   * org.ndrt.nn's shapes of the network (the type flowing into each layer), from a copy with the
   * training settings org.ndrt.nn may lack (schedules, l1, distributions, gradient normalisation) reset:
   * they do not change shapes. Null when org.ndrt.nn cannot build the network (sizes are then written as
   * configured, with no preprocessors inferred).
   */
  private static Translator.Result shapes(MultiLayerConfiguration c) {
    try {
      MultiLayerConfiguration s = c.clone();
      set(s, "iUpdater", new Sgd());
      set(s, "l2", 0.0);
      set(s, "weightDecay", 0.0);
      set(s, "dataType", DataType.FLOAT);
      for (NeuralNetConfiguration nc : s.getConfs()) {
        set(nc, "optimizationAlgo", OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT);
        set(nc, "miniBatch", true);
        if (nc.getLayer() instanceof BaseLayer) {
          BaseLayer b = (BaseLayer) nc.getLayer();
          for (String k : new String[] {"l1", "l2", "l1Bias", "l2Bias", "weightDecay", "biasInit"}) {
            set(b, k, 0.0);
          }
          set(b, "iUpdater", new Sgd());
          set(b, "biasUpdater", null);
          set(b, "dist", null);
          set(b, "weightInit", WeightInit.XAVIER);
          set(b, "gradientNormalization", null);
          if (b instanceof LSTM) { // org.ndrt.nn's recurrent ops: tanh and sigmoid gates
            set(b, "activation", Activation.TANH);
            set(b, "activationFn", null);
            set(b, "gateActivation", Activation.SIGMOID);
            set(b, "gateActivationFn", null);
          } else if (!supported((Activation) get(b, "activation"), (IActivation) get(b, "activationFn"))) {
            set(b, "activation", Activation.IDENTITY);
            set(b, "activationFn", null);
          }
        }
      }
      return Translator.translate(s);
    } catch (RuntimeException e) {
      if (Boolean.getBoolean("ndrt.debug.json")) {
        e.printStackTrace();
      }
      return null;
    }
  }

  private static boolean supported(Activation a, IActivation fn) {
    try {
      if (a != null || fn != null) {
        Mapping.activation(a, fn);
      }
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** One NeuralNetConfiguration (a layer with the network-wide settings) as Deeplearning4j writes it. */
  public static String write(NeuralNetConfiguration nc) {
    Layer l = nc.getLayer();
    long nIn = l instanceof FeedForwardLayer ? ((FeedForwardLayer) l).getNIn() : 0;
    long nOut = l instanceof FeedForwardLayer ? ((FeedForwardLayer) l).getNOut() : 0;
    return Json.write(conf(nc, Dl4jJsonLayers.write(l, l.getLayerName(), nIn, nOut, false, false), DataType.FLOAT));
  }

  private static Map<String, Object> conf(NeuralNetConfiguration nc, Map<String, Object> layer, DataType dt) {
    Map<String, Object> m = obj(null);
    m.put("cacheMode", "NONE");
    m.put("dataType", dt.name());
    m.put("epochCount", 0);
    m.put("iterationCount", 0);
    m.put("layer", layer);
    m.put("maxNumLineSearchIterations", 5);
    m.put("miniBatch", nc.isMiniBatch());
    m.put("minimize", true);
    m.put("optimizationAlgo", nc.getOptimizationAlgo().name());
    m.put("seed", nc.getSeed());
    m.put("stepFunction", null);
    m.put("variables", new ArrayList<>());
    return m;
  }

  /** 'C': a 2-D convolutional layer, 'R': a recurrent one, 'F': feed-forward, ' ': takes any input. */
  private static char kind(Layer l) {
    if (l instanceof ConvolutionLayer || l instanceof SubsamplingLayer) {
      return 'C';
    }
    if (l instanceof BaseRecurrentLayer || l instanceof RnnOutputLayer || l instanceof Convolution1DLayer) {
      return 'R';
    }
    if (l instanceof BatchNormalization || l instanceof DropoutLayer || l instanceof EmbeddingSequenceLayer
        || !(l instanceof FeedForwardLayer)) {
      return ' ';
    }
    return 'F';
  }

  private static long inferNIn(Layer l, org.ndrt.nn.conf.InputType in) {
    boolean cnn = in.kind == org.ndrt.nn.conf.InputType.Kind.CONVOLUTIONAL
        || in.kind == org.ndrt.nn.conf.InputType.Kind.CONVOLUTIONAL_FLAT;
    return cnn && (l instanceof ConvolutionLayer || l instanceof BatchNormalization) ? in.channels : in.size;
  }

  /** The preprocessor Deeplearning4j's list builder puts before a layer of this kind seeing {@code in}. */
  private static InputPreProcessor inferPreProcessor(Layer l, org.ndrt.nn.conf.InputType in) {
    char k = kind(l);
    switch (in.kind) {
      case CONVOLUTIONAL_FLAT:
        if (k == 'C' || l instanceof BatchNormalization) {
          return new FeedForwardToCnnPreProcessor(in.height, in.width, in.channels);
        }
        return k == 'R' ? new FeedForwardToRnnPreProcessor() : null;
      case CONVOLUTIONAL:
        return k == 'F' ? new CnnToFeedForwardPreProcessor(in.height, in.width, in.channels)
            : k == 'R' ? new CnnToRnnPreProcessor(in.height, in.width, in.channels) : null;
      case RECURRENT:
        return k == 'F' ? new RnnToFeedForwardPreProcessor() : null;
      default:
        return k == 'R' ? new FeedForwardToRnnPreProcessor() : null;
    }
  }

  static Map<String, Object> preProcessor(InputPreProcessor p) {
    String simple = p.getClass().getSimpleName();
    Map<String, Object> m = obj(p.getClass().getName());
    long[] shape = (long[]) get(p, "shape");
    if (simple.startsWith("Cnn") || simple.endsWith("ToCnnPreProcessor")) {
      if (shape.length != 3) {
        throw new UnsupportedOperationException("configuration JSON: " + simple + " needs (height, width, channels), has "
            + shape.length + " values");
      }
      m.put("inputHeight", shape[0]);
      m.put("inputWidth", shape[1]);
      m.put("numChannels", shape[2]);
    }
    if (simple.equals("CnnToFeedForwardPreProcessor")) {
      m.put("format", "NCHW");
    } else if (simple.contains("Rnn")) {
      m.put("rnnDataFormat", "NCW");
    }
    return m;
  }

  // ------------------------------------------------------------------ reading

  public static MultiLayerConfiguration read(String json) {
    Map<String, Object> m = Json.obj(Json.parse(json), "the configuration");
    if (m.containsKey(CLASS)) {
      return ConfJson.read(json, MultiLayerConfiguration.class); // the drop-in's earlier field JSON
    }
    Object cs = m.get("confs");
    if (!(cs instanceof List) || ((List<?>) cs).isEmpty()) {
      throw new IllegalArgumentException("configuration JSON: \"confs\" must be a non-empty array of layer configurations");
    }
    MultiLayerConfiguration c = Dl4jJsonValues.make(MultiLayerConfiguration.class);
    DataType dt = DataType.valueOf(Json.str(m, "dataType", "FLOAT"));
    List<NeuralNetConfiguration> confs = new ArrayList<>();
    for (Object o : (List<?>) cs) {
      confs.add(readConf(Json.obj(o, "a layer configuration")));
    }
    List<InputPreProcessor> pre = new ArrayList<>();
    Object pm = m.get("inputPreProcessors");
    if (pm != null) {
      for (Map.Entry<String, Object> e : Json.obj(pm, "inputPreProcessors").entrySet()) {
        int i = Integer.parseInt(e.getKey());
        while (pre.size() <= i) {
          pre.add(null);
        }
        pre.set(i, readPreProcessor(Json.obj(e.getValue(), "a preprocessor")));
      }
    }
    // The input type, where the first layer or preprocessor tells it (Deeplearning4j does not store it).
    InputType type = null;
    Layer first = confs.get(0).getLayer();
    long nIn = first instanceof FeedForwardLayer ? ((FeedForwardLayer) first).getNIn() : 0;
    if (!pre.isEmpty() && pre.get(0) instanceof FeedForwardToCnnPreProcessor) {
      long[] s = (long[]) get(pre.get(0), "shape");
      type = InputType.convolutionalFlat(s[0], s[1], s[2]);
    } else if (nIn > 0 && kind(first) == 'R') {
      type = InputType.recurrent(nIn);
    } else if (nIn > 0 && (kind(first) == 'F' && !(first instanceof VariationalAutoencoder) || first instanceof DropoutLayer
        || first instanceof BatchNormalization)) {
      // Not after a first VAE: Deeplearning4j's list builder infers no input type from it (typed()).
      type = InputType.feedForward(nIn);
    }
    boolean implied = type != null || !(first instanceof ConvolutionLayer || first instanceof SubsamplingLayer);
    set(c, "confs", confs);
    set(c, "inputType", type);
    set(c, implied ? "impliedPreProcessors" : "inputPreProcessors", pre);
    set(c, "backpropType", BackpropType.valueOf(Json.str(m, "backpropType", "Standard")));
    set(c, "tbpttFwdLength", (int) Json.integer(m, "tbpttFwdLength", 20));
    set(c, "tbpttBackLength", (int) Json.integer(m, "tbpttBackLength", 20));
    set(c, "dataType", dt);
    set(c, "epochCount", (int) Json.integer(m, "epochCount", 0));
    set(c, "iterationCount", (int) Json.integer(m, "iterationCount", 0));
    // The network-wide updater, l2 and weight decay org.ndrt.nn uses: the first layer with parameters'.
    IUpdater u = new Sgd();
    double l2 = 0;
    double wd = 0;
    for (NeuralNetConfiguration nc : confs) {
      if (nc.getLayer() instanceof BaseLayer && !(nc.getLayer() instanceof DropoutLayer)) {
        BaseLayer b = (BaseLayer) nc.getLayer();
        u = b.getIUpdater() != null ? b.getIUpdater() : u;
        l2 = b.getL2();
        wd = b.getWeightDecay();
        break;
      }
    }
    set(c, "iUpdater", u);
    set(c, "l2", l2);
    set(c, "weightDecay", wd);
    return c;
  }

  /** One NeuralNetConfiguration's JSON (an element of "confs"). */
  public static NeuralNetConfiguration readConf(String json) {
    return readConf(Json.obj(Json.parse(json), "the layer configuration"));
  }

  private static NeuralNetConfiguration readConf(Map<String, Object> m) {
    NeuralNetConfiguration nc = Dl4jJsonValues.make(NeuralNetConfiguration.class);
    set(nc, "layer", Dl4jJsonLayers.read(Json.obj(m.get("layer"), "\"layer\"")));
    set(nc, "seed", Json.integer(m, "seed", 0));
    set(nc, "optimizationAlgo", OptimizationAlgorithm.valueOf(Json.str(m, "optimizationAlgo",
        OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT.name())));
    set(nc, "miniBatch", Json.bool(m, "miniBatch", true));
    return nc;
  }

  static InputPreProcessor readPreProcessor(Map<String, Object> m) {
    String name = Json.str(m, CLASS);
    Class<?> c = Dl4jJsonValues.known(name, InputPreProcessor.class);
    InputPreProcessor p = (InputPreProcessor) Dl4jJsonValues.make(c);
    if (m.containsKey("inputHeight")) {
      set(p, "shape", new long[] {Json.integer(m, "inputHeight"), Json.integer(m, "inputWidth"),
          Json.integer(m, "numChannels")});
    }
    for (String k : new String[] {"format", "rnnDataFormat"}) {
      String f = Json.str(m, k, null);
      if (f != null && !f.equals("NCHW") && !f.equals("NCW")) {
        throw new UnsupportedOperationException("configuration JSON: " + name.substring(PRE.length()) + " with " + k + " "
            + f + " is not in ndrt's Deeplearning4j drop-in (NCHW / NCW only)");
      }
    }
    return p;
  }
}
