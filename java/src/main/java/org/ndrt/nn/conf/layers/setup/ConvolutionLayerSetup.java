package org.ndrt.nn.conf.layers.setup;

import org.ndrt.LegacyApi;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.MultiLayerConfiguration;

/**
 * Deeplearning4j's early way of telling a convolutional network its image size, {@code new
 * ConvolutionLayerSetup(builder, 28, 28, 1)} (removed in Deeplearning4j 0.7): sets the list builder's
 * input type to {@code InputType.convolutionalFlat(rows, cols, channels)}, the modern form, which
 * infers every nIn when the configuration is built.
 */
public final class ConvolutionLayerSetup {
  /**
   * @param builder the list builder ({@code new NeuralNetConfiguration.Builder()...list()...})
   * @param rows image height
   * @param cols image width
   * @param channels image channels
   */
  public ConvolutionLayerSetup(MultiLayerConfiguration.Builder builder, int rows, int cols, int channels) {
    if (builder == null) {
      throw new IllegalArgumentException("ConvolutionLayerSetup: the builder must not be null");
    }
    LegacyApi.warn("new ConvolutionLayerSetup(builder, rows, cols, channels)",
        "setInputType(InputType.convolutionalFlat(" + rows + ", " + cols + ", " + channels + ")) on the list builder");
    builder.setInputType(InputType.convolutionalFlat(rows, cols, channels));
  }
}
