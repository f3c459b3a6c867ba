package org.ndrt.nn.conf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ndrt.DType;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Updater;

/**
 * A checked network configuration: the network-wide settings, the layers with every nIn resolved,
 * and the type flowing into each layer. Built by {@link NeuralNetConfiguration.ListBuilder#build()}
 * or read back with {@link #fromJson(String)}; serialises to JSON with {@link #toJson()}.
 */
public final class MultiLayerConfiguration implements NetworkConfiguration {
  /** The JSON format's name and version. */
  public static final String FORMAT = "ndrt-multilayer/1";

  private final long seed;
  private final WeightInit weightInit;
  private final Activation activation;
  private final Updater updater;
  private final double l2;
  private final double weightDecay;
  private final DType dataType;
  private final double lossScale;
  private final InputType inputType;
  private final List<Layer> layers;
  private final List<InputType> layerInputs = new ArrayList<>();
  private final InputType outputType;
  private BackpropType backpropType = BackpropType.Standard;
  private int tbpttFwdLength = 20;
  private int tbpttBackLength = 20;
  private boolean miniBatch = true;

  MultiLayerConfiguration(long seed, WeightInit weightInit, Activation activation, Updater updater, double l2,
      double weightDecay, DType dataType, double lossScale, InputType inputType, List<Layer> layers) {
    this.seed = seed;
    this.weightInit = weightInit;
    this.activation = activation;
    this.updater = updater;
    this.l2 = l2;
    this.weightDecay = weightDecay;
    this.dataType = dataType;
    this.lossScale = lossScale;
    this.inputType = inputType;
    this.layers = Collections.unmodifiableList(new ArrayList<>(layers));
    if (layers.isEmpty()) {
      throw new IllegalArgumentException("the network has no layers");
    }
    for (int i = 0; i < layers.size(); ++i) {
      Layer l = layers.get(i);
      l.applyDefaults("layer" + i, activation, weightInit);
      // A VariationalAutoencoder may end a network that is only pretrained (its output: the mean of q(z|x)).
      boolean unsupervisedEnd = l instanceof org.ndrt.nn.conf.layers.VariationalAutoencoder;
      if (l instanceof OutputLayer != (i == layers.size() - 1) && !(unsupervisedEnd && i == layers.size() - 1)) {
        throw new IllegalArgumentException(i == layers.size() - 1
            ? "the last layer must be an OutputLayer (it has the loss) or a VariationalAutoencoder (pretraining only), got "
                + l.getClass().getSimpleName()
            : "layer " + i + " is an OutputLayer but only the last layer may be one");
      }
      if (i > 0 && l instanceof org.ndrt.nn.conf.layers.EmbeddingSequenceLayer) {
        throw new IllegalArgumentException("layer " + i + " (\"" + l.name() + "\") is an EmbeddingSequenceLayer: only the"
            + " first layer may be one (it takes the network's input indices)");
      }
    }
    InputType t = inputType != null ? inputType : layers.get(0).impliedInput();
    for (Layer l : layers) {
      layerInputs.add(t);
      t = l.inferOutput(t);
    }
    if (layers.get(0) instanceof org.ndrt.nn.conf.layers.EmbeddingSequenceLayer) {
      // An embedding's recurrent(vocabulary) input type (Deeplearning4j's form) names nIn; the features are indices.
      layerInputs.set(0, InputType.recurrent(1, layerInputs.get(0).timeSeriesLength));
    }
    this.outputType = t;
  }

  public long seed() {
    return seed;
  }

  public WeightInit weightInit() {
    return weightInit;
  }

  public Updater updater() {
    return updater;
  }

  public double l2() {
    return l2;
  }

  public double weightDecay() {
    return weightDecay;
  }

  /** The compute dtype (F32, or F16/BF16 for mixed precision). */
  public DType dataType() {
    return dataType;
  }

  public double lossScale() {
    return lossScale;
  }

  /** What the network takes in (as given, or implied by the first layer's nIn). */
  public InputType inputType() {
    return layerInputs.get(0);
  }

  public List<Layer> layers() {
    return layers;
  }

  /** What flows into layer {@code i}. */
  public InputType layerInput(int i) {
    return layerInputs.get(i);
  }

  /** What the network puts out. */
  public InputType outputType() {
    return outputType;
  }

  /** The last layer, which has the loss; IllegalStateException for a network that ends in a VariationalAutoencoder. */
  public OutputLayer outputLayer() {
    Layer last = layers.get(layers.size() - 1);
    if (!(last instanceof OutputLayer)) {
      throw new IllegalStateException("the network ends in a " + last.getClass().getSimpleName() + ", not an OutputLayer:"
          + " it has no labels or loss (train it with pretrain, take its output with output)");
    }
    return (OutputLayer) last;
  }

  /** Standard or TruncatedBPTT (set on the list builder). */
  public BackpropType backpropType() {
    return backpropType;
  }

  /** Truncated BPTT: steps per segment. */
  public int tbpttFwdLength() {
    return tbpttFwdLength;
  }

  /** Truncated BPTT: steps the gradient flows back through per segment (equal to the forward length). */
  public int tbpttBackLength() {
    return tbpttBackLength;
  }

  /**
   * Deeplearning4j's miniBatch: true (the default), the score and gradients are the minibatch mean;
   * false, its sum (the mean times N, for the loss and its gradient; L2 and weight decay unchanged).
   */
  public boolean miniBatch() {
    return miniBatch;
  }

  /** Set once by the builder. */
  void setMiniBatch(boolean miniBatch) {
    this.miniBatch = miniBatch;
  }

  /** Set once by the list builder: the backprop type and its lengths, checked against the layers. */
  void setBackprop(BackpropType type, int fwd, int back) {
    if (type == BackpropType.TruncatedBPTT) {
      if (!(outputLayer() instanceof org.ndrt.nn.conf.layers.RnnOutputLayer)) {
        throw new IllegalArgumentException("TruncatedBPTT needs labels at every time step: the last layer must be an"
            + " RnnOutputLayer, got " + outputLayer().getClass().getSimpleName());
      }
      for (Layer l : layers) {
        if (l instanceof org.ndrt.nn.conf.layers.Bidirectional) {
          throw new IllegalArgumentException("TruncatedBPTT: Bidirectional layer \"" + l.name()
              + "\" needs the whole sequence (use Standard backprop)");
        }
      }
      if (fwd != back) {
        throw new IllegalArgumentException("TruncatedBPTT: tBPTTBackwardLength (" + back + ") must equal"
            + " tBPTTForwardLength (" + fwd + "); shorter backward lengths are not supported");
      }
    }
    this.backpropType = type;
    this.tbpttFwdLength = fwd;
    this.tbpttBackLength = back;
  }

  public String toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("format", FORMAT);
    NeuralNetConfiguration.settingsToJson(m, seed, weightInit, activation, updater, l2, weightDecay, dataType, lossScale);
    m.put("inputType", inputType == null ? null : inputType.toJson());
    if (!miniBatch) {
      m.put("miniBatch", false);  // only when set: earlier files stay byte for byte the same
    }
    if (backpropType != BackpropType.Standard) {
      m.put("backpropType", backpropType.name());
      m.put("tbpttFwdLength", tbpttFwdLength);
      m.put("tbpttBackLength", tbpttBackLength);
    }
    List<Object> ls = new ArrayList<>();
    for (Layer l : layers) {
      ls.add(l.toJson());
    }
    m.put("layers", ls);
    return Json.write(m);
  }

  /** Reads {@link #toJson()}'s text; the layers are checked again as at build time. */
  public static MultiLayerConfiguration fromJson(String json) {
    Map<String, Object> m = Json.obj(Json.parse(json), "the configuration");
    String format = Json.str(m, "format", null);
    if (!FORMAT.equals(format)) {
      throw new IllegalArgumentException("configuration JSON: format is " + format + ", expected " + FORMAT);
    }
    NeuralNetConfiguration.Builder b = NeuralNetConfiguration.settingsFromJson(m);
    NeuralNetConfiguration.ListBuilder lb = b.list();
    lb.backpropType(BackpropType.valueOf(Json.str(m, "backpropType", BackpropType.Standard.name())));
    lb.tBPTTForwardLength((int) Json.integer(m, "tbpttFwdLength", 20));
    lb.tBPTTBackwardLength((int) Json.integer(m, "tbpttBackLength", 20));
    Object it = m.get("inputType");
    if (it != null) {
      lb.setInputType(InputType.fromJson(Json.obj(it, "inputType")));
    }
    Object ls = m.get("layers");
    if (!(ls instanceof List)) {
      throw new IllegalArgumentException("configuration JSON: \"layers\" must be an array");
    }
    for (Object l : (List<?>) ls) {
      lb.layer(Layer.fromJson(Json.obj(l, "a layer")));
    }
    return lb.build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MultiLayerConfiguration && ((MultiLayerConfiguration) o).toJson().equals(toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return toJson();
  }

  /**
   * What {@link NeuralNetConfiguration.ListBuilder} is, under Deeplearning4j's name, for programs
   * that declare {@code MultiLayerConfiguration.Builder builder = new NeuralNetConfiguration.Builder()
   * ... .list() ...;} (the only implementation is the list builder).
   */
  public abstract static class Builder {
    Builder() {}

    /** What the network takes in (see {@link NeuralNetConfiguration.ListBuilder#setInputType}). */
    public abstract Builder setInputType(InputType type);

    /**
     * Deeplearning4j's {@code backprop(true)}: see {@link NeuralNetConfiguration.ListBuilder#backprop}.
     *
     * @deprecated as in Deeplearning4j 1.0: leave it out
     */
    @Deprecated
    public abstract Builder backprop(boolean backprop);

    /**
     * Deeplearning4j's {@code pretrain(false)}: see {@link NeuralNetConfiguration.ListBuilder#pretrain}.
     *
     * @deprecated as in Deeplearning4j 1.0: leave it out
     */
    @Deprecated
    public abstract Builder pretrain(boolean pretrain);

    /** The checked configuration. */
    public abstract MultiLayerConfiguration build();
  }
}
