package org.ndrt.nn.conf;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.nn.updater.Updater;

/**
 * The entry point of a network configuration, in Deeplearning4j's shape:
 *
 * <pre>{@code
 * MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
 *     .seed(123).l2(0.0005).weightInit(WeightInit.XAVIER).updater(new Nesterovs(0.01, 0.9))
 *     .list()
 *     .layer(new ConvolutionLayer.Builder(5, 5).nOut(20).build())
 *     ...
 *     .setInputType(InputType.convolutionalFlat(28, 28, 1))
 *     .build();
 * }</pre>
 */
public final class NeuralNetConfiguration {
  private NeuralNetConfiguration() {}

  /** Network-wide settings; {@link #list()} goes on to the layers. */
  public static final class Builder {
    long seed = 12345;
    WeightInit weightInit = WeightInit.XAVIER;
    Activation activation;
    Updater updater = new Sgd(0.1);
    double l2;
    double weightDecay;
    DType dataType = DType.F32;
    double lossScale = 1024;

    /** Seed of the weight initialisation and dropout streams. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Default weight initialisation of the layers (default XAVIER). */
    public Builder weightInit(WeightInit w) {
      this.weightInit = require(w, "weightInit");
      return this;
    }

    /** Default activation of hidden layers that set none (otherwise each layer type's default). */
    public Builder activation(Activation a) {
      this.activation = require(a, "activation");
      return this;
    }

    /** The gradient updater (default Sgd(0.1)). */
    public Builder updater(Updater u) {
      this.updater = require(u, "updater");
      return this;
    }

    /** L2 regularisation of the weights (not biases), added to the gradient as l2 * w. */
    public Builder l2(double l2) {
      this.l2 = nonNegative(l2, "l2");
      return this;
    }

    /**
     * Decoupled weight decay of the weights: w -= lr * weightDecay * w each step (AdamW with Adam).
     */
    public Builder weightDecay(double wd) {
      this.weightDecay = nonNegative(wd, "weightDecay");
      return this;
    }

    /**
     * The compute dtype: F32 (default), or F16 / BF16 for mixed precision — the layers compute in
     * that dtype from f32 master weights, the loss is computed in f32 and scaled (dynamic loss
     * scaling, starting at {@link #lossScale}).
     */
    public Builder dataType(DType dtype) {
      if (dtype != DType.F32 && dtype != DType.F16 && dtype != DType.BF16) {
        throw new IllegalArgumentException("dataType must be F32, F16 or BF16, got " + dtype);
      }
      this.dataType = dtype;
      return this;
    }

    /** The initial loss scale of mixed precision (default 1024; halved on overflow, grown when stable). */
    public Builder lossScale(double scale) {
      if (!(scale >= 1) || !Double.isFinite(scale)) {
        throw new IllegalArgumentException("lossScale must be finite and >= 1, got " + scale);
      }
      this.lossScale = scale;
      return this;
    }

    /** Goes on to the layers. */
    public ListBuilder list() {
      return new ListBuilder(this);
    }

    private static <T> T require(T v, String what) {
      if (v == null) {
        throw new IllegalArgumentException(what + " must not be null");
      }
      return v;
    }

    private static double nonNegative(double v, String what) {
      if (!(v >= 0) || !Double.isFinite(v)) {
        throw new IllegalArgumentException(what + " must be finite and >= 0, got " + v);
      }
      return v;
    }
  }

  /** The layers, in order, and the input type. */
  public static final class ListBuilder {
    final Builder global;
    final List<Layer> layers = new ArrayList<>();
    InputType inputType;

    ListBuilder(Builder global) {
      this.global = global;
    }

    /** Appends a layer. */
    public ListBuilder layer(Layer layer) {
      if (layer == null) {
        throw new IllegalArgumentException("layer must not be null");
      }
      layers.add(layer);
      return this;
    }

    /** Sets layer {@code index}, which must be the next one (Deeplearning4j's indexed form). */
    public ListBuilder layer(int index, Layer layer) {
      if (index != layers.size()) {
        throw new IllegalArgumentException("layer(" + index + ", ...): the next layer index is " + layers.size());
      }
      return layer(layer);
    }

    /** What the network takes in; lets every layer's nIn and spatial size be inferred. */
    public ListBuilder setInputType(InputType type) {
      this.inputType = type;
      return this;
    }

    /** Checks every layer against its input (errors here, before any training) and freezes the configuration. */
    public MultiLayerConfiguration build() {
      return new MultiLayerConfiguration(global.seed, global.weightInit, global.activation, global.updater, global.l2,
          global.weightDecay, global.dataType, global.lossScale, inputType, layers);
    }
  }
}
