package org.ndrt.nn.layers;

import java.util.Arrays;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.layers.GlobalPoolingLayer;

/**
 * sequence_pool / sequence_pool_bp over the time axis under the mask built from the valid lengths
 * (ones without). Sequences come in as [N, T, C] views: when such a view is the permutation of a dense
 * [N, C, T] array (a Convolution1D layer's output, the features themselves) the op reads that in
 * layout 0 and the input gradient is a [N, C, T] buffer handed back as a [N, T, C] view; otherwise
 * (a recurrent layer's [N, T, C] output) layout 1. Images [N, C, H, W] are pooled as [N, C, H W]
 * (layout 0), channels-last ones [N, H, W, C] as [N, H W, C] (layout 1), with a mask of ones. Hands
 * no lengths to the layers after it.
 */
final class GlobalPoolingImpl extends LayerImpl {
  private final GlobalPoolingLayer conf;
  private final long mode;
  private final SequenceMasks.Swapped inView = new SequenceMasks.Swapped();
  private final SequenceMasks.Swapped dxView = new SequenceMasks.Swapped();
  private Tensor lengths;
  private Tensor x3;      // what the op pools: [N, C, T] (layout 0) or [N, T, C] (layout 1)
  private long layout;
  private Tensor mask;    // [N, T]
  private long[] inShape;
  private boolean image;
  private Tensor filledOnes;  // the "ones" buffer once filled

  GlobalPoolingImpl(GlobalPoolingLayer conf, DType dtype) {
    super(dtype);
    this.conf = conf;
    switch (conf.poolingType()) {
      case MAX: mode = 0; break;
      case AVG: mode = 1; break;
      case SUM: mode = 2; break;
      default: throw new IllegalArgumentException("GlobalPoolingLayer: pooling type " + conf.poolingType()
          + " is not supported");
    }
  }

  @Override
  public ChannelsLast.Role channelsLastRole() {
    return ChannelsLast.Role.READS;
  }

  @Override
  public void setSequenceLengths(Tensor lengths) {
    this.lengths = lengths;
  }

  @Override
  public Tensor sequenceLengthsOut(Tensor lengths) {
    return null;
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    inShape = in.shape();
    long[] s = inShape;
    image = s.length == 4;
    if (s.length != 3 && s.length != 4) {
      throw new IllegalArgumentException("GlobalPoolingLayer \"" + conf.name() + "\": input has shape " + Arrays.toString(s)
          + ", expected sequences [N, T, C] or images [N, C, H, W]");
    }
    long n = s[0];
    long c;
    long t;
    if (image) {
      c = nhwcIn ? s[3] : s[1];
      t = nhwcIn ? s[1] * s[2] : s[2] * s[3];
      Tensor dense = in.isContiguous() ? in : Ops.copy(in, buffer("xc", dtype, s));
      x3 = nhwcIn ? view("x3", dense, n, t, c) : view("x3", dense, n, c, t);
      layout = nhwcIn ? 1 : 0;
    } else {
      t = s[1];
      c = s[2];
      Tensor back = inView.of(in);
      if (back.isContiguous()) {
        x3 = back;
        layout = 0;
      } else {
        x3 = in;
        layout = 1;
      }
    }
    if (!image && lengths != null) {
      long[] len = lengths.toLongArray();
      if (len.length != n) {
        throw new IllegalArgumentException("GlobalPoolingLayer \"" + conf.name() + "\": " + len.length
            + " sequence lengths for a batch of " + n);
      }
      mask = SequenceMasks.write(buffer("mask", dtype, n, t), len, t);
    } else {
      Tensor ones = buffer("ones", dtype, n, t);
      if (ones != filledOnes) {  // a new buffer (another shape, or the buffers were released)
        ones.fill(1);
        filledOnes = ones;
      }
      mask = ones;
    }
    Tensor y = Ops.sequencePool(x3, mask, mode, layout, buffer("y", dtype, n, c));
    return image && !conf.collapseDimensions() ? view("y4", y, n, c, 1, 1) : y;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    if (!needDx) {
      return null;
    }
    long n = inShape[0];
    long c = layout == 0 ? x3.shape()[1] : x3.shape()[2];
    Tensor d2 = dy;
    if (dy.rank() != 2) {
      Tensor dense = dy.isContiguous() ? dy : Ops.copy(dy, buffer("dyc", dtype, dy.shape()));
      d2 = view("dy2", dense, n, c);
    }
    Tensor dx = Ops.sequencePoolBp(x3, mask, d2, mode, layout, buffer("dx", dtype, x3.shape()));
    if (image) {
      return view("dx4", dx, inShape);
    }
    return layout == 0 ? dxView.of(dx) : dx;
  }

  @Override
  public void close() {
    inView.close();
    dxView.close();
    super.close();
  }
}
