package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;

/**
 * Deeplearning4j's {@code GlobalPoolingLayer}: MAX, AVG or SUM over the whole time axis of sequences
 * (or over height and width of images), no parameters.
 *
 * <ul>
 *   <li>Sequences [N, n, T] (InputType.recurrent) give rows [N, n] (InputType.feedForward(n)), so a
 *   DenseLayer or OutputLayer can follow. The features mask decides which steps count: AVG divides by
 *   each sequence's number of valid steps, MAX and SUM look at the valid steps only, and a sequence
 *   without a valid step gives 0. The layer consumes the mask: the layers after it see none.
 *   <li>Images [N, c, h, w] give rows [N, c] (with {@code collapseDimensions(false)}: [N, c, 1, 1],
 *   InputType.convolutional(1, 1, c)).
 * </ul>
 *
 * The runtime's sequence_pool / sequence_pool_bp ops do the work. PNORM is refused when the layer is
 * built; {@code collapseDimensions(false)} is only taken for images (Deeplearning4j's [N, n, 1]
 * sequence output would need labels with one step); Deeplearning4j's poolingDimensions are always
 * the time axis, or height and width.
 */
public final class GlobalPoolingLayer extends Layer {
  private final PoolingType poolingType;
  private final boolean collapseDimensions;

  private GlobalPoolingLayer(Builder b) {
    super(b);
    this.poolingType = b.poolingType;
    this.collapseDimensions = b.collapseDimensions;
  }

  public PoolingType poolingType() {
    return poolingType;
  }

  /** True (the default): rows [N, n]; false: images keep unit height and width, [N, c, 1, 1]. */
  public boolean collapseDimensions() {
    return collapseDimensions;
  }

  @Override
  public boolean hasParams() {
    return false;
  }

  @Override
  public InputType impliedInput() {
    throw error("pooling needs to know what it pools: call setInputType(InputType.recurrent(...)) (or a convolutional"
        + " input type) on the list builder");
  }

  @Override
  public InputType inferOutput(InputType in) {
    if (in.isRecurrent()) {
      if (!collapseDimensions) {
        throw error("collapseDimensions(false) is not supported for sequences (it would give [N, " + in.size
            + ", 1]): leave it true to get rows [N, " + in.size + "]");
      }
      nIn = in.size;
      nOut = in.size;
      return InputType.feedForward(in.size);
    }
    if (in.isConvolutional()) {
      nIn = in.channels;
      nOut = in.channels;
      return collapseDimensions ? InputType.feedForward(in.channels) : InputType.convolutional(1, 1, in.channels);
    }
    throw error("takes sequences (InputType.recurrent) or images (InputType.convolutional), got " + in);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("poolingType", poolingType.name());
    m.put("collapseDimensions", collapseDimensions);
    return m;
  }

  /** {@code new GlobalPoolingLayer.Builder(PoolingType.MAX).build()}; MAX by default. */
  public static final class Builder extends Layer.Builder<Builder> {
    private PoolingType poolingType = PoolingType.MAX;
    private boolean collapseDimensions = true;

    public Builder() {}

    public Builder(PoolingType poolingType) {
      poolingType(poolingType);
    }

    public Builder poolingType(PoolingType poolingType) {
      if (poolingType == null) {
        throw new IllegalArgumentException("GlobalPoolingLayer: the pooling type must not be null");
      }
      this.poolingType = poolingType;
      return this;
    }

    /** True (default): rows [N, n]; false: images give [N, c, 1, 1] (not taken for sequences). */
    public Builder collapseDimensions(boolean collapse) {
      this.collapseDimensions = collapse;
      return this;
    }

    @Override
    public GlobalPoolingLayer build() {
      if (poolingType == PoolingType.PNORM) {
        throw new IllegalArgumentException("GlobalPoolingLayer: PoolingType.PNORM is not supported (MAX, AVG or SUM)");
      }
      return new GlobalPoolingLayer(this);
    }

    static Builder fromJson(Map<String, Object> m) {
      return new Builder(PoolingType.valueOf(Json.str(m, "poolingType")))
          .collapseDimensions(Json.bool(m, "collapseDimensions", true));
    }
  }
}
