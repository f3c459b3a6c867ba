package org.ndrt.dl4j;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseRecurrentLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;

/** A network's layer as Deeplearning4j's api.Layer: its configuration, index and kind (no per-layer compute). */
public final class LayerView {
  private LayerView() {}

  /** {@code numParams} gives the layer's parameter count from the network (it throws before init). */
  public static Layer of(NeuralNetConfiguration c, int index, java.util.function.LongSupplier numParams) {
    org.deeplearning4j.nn.conf.layers.Layer l = c.getLayer();
    Layer.Type type = l instanceof ConvolutionLayer ? Layer.Type.CONVOLUTIONAL
        : l instanceof SubsamplingLayer ? Layer.Type.SUBSAMPLING : l instanceof BaseRecurrentLayer ? Layer.Type.RECURRENT
        : l instanceof BatchNormalization ? Layer.Type.NORMALIZATION : Layer.Type.FEED_FORWARD;
    return new Layer() {
      @Override
      public NeuralNetConfiguration conf() {
        return c;
      }

      @Override
      public int getIndex() {
        return index;
      }

      @Override
      public Layer.Type type() {
        return type;
      }

      @Override
      public long numParams() {
        return numParams.getAsLong();
      }
    };
  }
}
