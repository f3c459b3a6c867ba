package org.deeplearning4j.nn.conf.layers.setup;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;

/**
 * Deeplearning4j 0.x's way to say a network of convolutions takes flat images
 * ({@code new ConvolutionLayerSetup(builder, 28, 28, 1)}): what 1.0 writes as
 * {@code builder.setInputType(InputType.convolutionalFlat(height, width, channels))}, which this does.
 */
public class ConvolutionLayerSetup {
  public ConvolutionLayerSetup(MultiLayerConfiguration.Builder builder, int height, int width, int channels) {
    if (builder == null) {
      throw new IllegalArgumentException("ConvolutionLayerSetup: the builder is null");
    }
    org.ndrt.LegacyApi.warn("new ConvolutionLayerSetup(builder, h, w, c)",
        "builder.setInputType(InputType.convolutionalFlat(h, w, c))");
    builder.setInputType(InputType.convolutionalFlat(height, width, channels));
  }
}
