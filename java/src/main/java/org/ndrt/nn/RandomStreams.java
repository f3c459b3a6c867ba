package org.ndrt.nn;

import java.util.Arrays;
import org.ndrt.nn.layers.LayerImpl;

/**
 * The random streams of a network's layers (dropout masks), for data-parallel training: where each
 * layer's stream stands (its offset: the numbers drawn from it so far, 0 for a layer that draws
 * none) and which of the layers' independent streams the network draws from.
 *
 * <p>Stream {@code s} of layer {@code i} is the runtime's Philox stream with key {@code seed + 1 + i
 * + s * 2^32} ({@code seed}: the configuration's); stream 0, the default, is the network's own. As
 * {@code i} and {@code s} are below 2^31, no two (layer, stream) pairs of a network share a key, so
 * their numbers never overlap. ParallelWrapper gives worker {@code w}'s replica stream {@code w}.
 * Both the offsets and the stream are training state: saved with the model and copied by {@link
 * MultiLayerNetwork#clone()}.
 */
public final class RandomStreams {
  private RandomStreams() {}

  /** The stream the network's layers draw from (0 unless {@link #setStream} chose another). */
  public static int stream(Model net) {
    return layersOf(net)[0].randomStream(); // every layer has the same (setStream)
  }

  /**
   * Makes every layer of the network draw from stream {@code stream} from now on, at its current
   * offset.
   *
   * @throws IllegalArgumentException if {@code net} is null or {@code stream < 0}
   * @throws IllegalStateException if the network is not initialised or is closed
   */
  public static void setStream(Model net, int stream) {
    if (stream < 0) {
      throw new IllegalArgumentException("RandomStreams.setStream: the stream must be >= 0, got " + stream);
    }
    for (LayerImpl l : layersOf(net)) {
      l.setRandomStream(stream);
    }
  }

  /** Each layer's random stream offset, in layer order (a new array). */
  public static long[] offsets(Model net) {
    return Arrays.stream(layersOf(net)).mapToLong(LayerImpl::randomOffset).toArray();
  }

  /**
   * Puts each layer's random stream at {@code offsets[i]}; all or nothing.
   *
   * @throws IllegalArgumentException if {@code net} or {@code offsets} is null or not one per layer, an offset is
   *     negative, or one is not 0 for a layer that draws no random numbers
   * @throws IllegalStateException if the network is not initialised or is closed
   */
  public static void setOffsets(Model net, long[] offsets) {
    LayerImpl[] layers = layersOf(net);
    if (offsets == null || offsets.length != layers.length) {
      throw new IllegalArgumentException("RandomStreams.setOffsets: need " + layers.length + " offsets (one per layer), got "
          + (offsets == null ? "null" : offsets.length));
    }
    long[] before = offsets(net);
    try {
      for (int i = 0; i < layers.length; ++i) {
        layers[i].setRandomOffset(offsets[i]);
      }
    } catch (IllegalArgumentException e) {
      for (int i = 0; i < layers.length; ++i) {
        layers[i].setRandomOffset(before[i]); // valid: they were the layers' own
      }
      throw new IllegalArgumentException("RandomStreams.setOffsets: layer offsets " + Arrays.toString(offsets) + ": "
          + e.getMessage(), e);
    }
  }

  private static LayerImpl[] layersOf(Model net) {
    if (net == null) {
      throw new IllegalArgumentException("RandomStreams: the network must not be null");
    }
    return net.layers();
  }
}
