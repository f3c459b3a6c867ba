package org.ndrt.nn.layers;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.layers.DropoutLayer;

/**
 * Inverted dropout from the runtime's Philox stream: key = the network seed + 1 + the layer index,
 * plus {@code randomStream() * 2^32} (Philox's second key word + the stream, so the keys of the
 * network's layers and streams are all distinct), the offset moving on by the elements drawn, so a
 * run is reproducible on any thread count.
 */
final class DropoutImpl extends LayerImpl {
  private final double prob;
  private final long seed;
  private long offset;
  private Tensor mask;

  DropoutImpl(DropoutLayer conf, long seed, DType dtype) {
    super(dtype);
    this.prob = conf.dropProbability();
    this.seed = seed;
  }

  @Override
  public long randomOffset() {
    return offset;
  }

  @Override
  public void setRandomOffset(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("dropout: the random stream offset must be >= 0, got " + offset);
    }
    this.offset = offset;
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    if (!training || prob == 0) {
      mask = null;
      return x;
    }
    Tensor y = buffer("y", dtype, x.shape());
    mask = buffer("mask", DType.BOOL, x.shape());
    Ops.dropout(x, prob, seed + ((long) randomStream() << 32), offset, y, mask);
    offset += x.numel();
    return y;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    if (mask == null) {
      return dy;
    }
    return Ops.dropoutBp(dy, mask, prob, buffer("dx", dtype, dy.shape()));
  }
}
