package org.ndrt.nn.layers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.Convolution1DLayer;

/**
 * conv1d_bias (conv1d without a bias) + activation forward; conv1d_bp_weights / _bp_bias / _bp_data
 * backward, in the ops' NCW layout: the input [N, T, nIn] (the network's sequence view) is permuted
 * back to [N, nIn, T] (the features array itself for a first layer; strided after a recurrent layer,
 * which the op copies), the output is a [N, nOut, T'] buffer handed on as a [N, T', nOut] view. With
 * lengths the input is multiplied by the mask first and the input gradient after (see
 * Convolution1DLayer), and the next layer's lengths are computed here.
 */
final class Convolution1DImpl extends LayerImpl {
  /** Keeps the sequence lengths it hands downstream in its buffers between passes. */
  @Override
  public boolean releasableBetweenPasses() {
    return false;
  }

  private final Convolution1DLayer conf;
  private final long nIn;
  private final long nOut;
  private final long kernel;
  private final long stride;
  private final long[] padding;
  private final boolean same;
  private final long dilation;
  private final boolean hasBias;
  private final boolean keepsLengths;
  private final Activation act;
  private final SequenceMasks.Swapped inView = new SequenceMasks.Swapped();
  private final SequenceMasks.Swapped outView = new SequenceMasks.Swapped();
  private final SequenceMasks.Swapped dyView = new SequenceMasks.Swapped();
  private final SequenceMasks.Swapped dxView = new SequenceMasks.Swapped();
  private Tensor lengths;     // this minibatch's valid lengths, or null
  private Tensor outLengths;  // the next layer's (when this layer changes them)
  private Tensor x;           // the convolution's input [N, nIn, T] (masked when there are lengths)
  private Tensor mask;        // [N, 1, T] in the compute dtype, or null
  private Tensor z;
  private Tensor y;

  Convolution1DImpl(Convolution1DLayer conf, DType dtype) {
    super(dtype);
    this.conf = conf;
    this.nIn = conf.nIn();
    this.nOut = conf.nOut();
    this.kernel = conf.kernelSize();
    this.stride = conf.stride();
    this.same = conf.convolutionMode() == ConvMode.Same;
    this.padding = new long[] {same ? 0 : conf.padding()};
    this.dilation = conf.dilation();
    this.hasBias = conf.hasBias();
    this.keepsLengths = same && stride == 1;
    this.act = conf.activation();
  }

  @Override
  public List<ParamSpec> params() {
    List<ParamSpec> l = new ArrayList<>();
    l.add(ParamSpec.weight("W", nIn * kernel, nOut * kernel / (double) stride, nOut, nIn, kernel));  // Deeplearning4j's fans
    if (hasBias) {
      l.add(ParamSpec.bias("b", 0, false, nOut));
    }
    return l;
  }

  @Override
  public void setSequenceLengths(Tensor lengths) {
    this.lengths = lengths;
  }

  @Override
  public Tensor sequenceLengthsOut(Tensor lengths) {
    if (lengths == null || keepsLengths) {
      return lengths;
    }
    outLengths = buffer("outLengths", DType.I64, lengths.shape()[0]);
    return outLengths;
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    long[] s = in.shape();
    if (s.length != 3 || s[2] != nIn) {
      throw new IllegalArgumentException("Convolution1DLayer \"" + conf.name() + "\": input has shape " + Arrays.toString(s)
          + " (as [N, T, features]), expected [N, T, " + nIn + "]");
    }
    long n = s[0];
    long t = s[1];
    long tOut = conf.outputLength(t);
    Tensor xn = inView.of(in);
    mask = null;
    x = xn;
    if (lengths != null) {
      long[] len = lengths.toLongArray();
      if (len.length != n) {
        throw new IllegalArgumentException("Convolution1DLayer \"" + conf.name() + "\": " + len.length
            + " sequence lengths for a batch of " + n);
      }
      mask = SequenceMasks.write(buffer("mask", dtype, n, 1, t), len, t);
      x = Ops.mul(xn, mask, buffer("xm", dtype, n, nIn, t));
      if (!keepsLengths) {
        long[] lo = new long[len.length];
        for (int b = 0; b < lo.length; ++b) {
          lo[b] = conf.validOutputLength(Math.min(len[b], t), t);
        }
        if (outLengths == null || outLengths.shape()[0] != n) {
          outLengths = buffer("outLengths", DType.I64, n);
        }
        outLengths.copyFrom(lo);
      }
    }
    z = buffer("z", dtype, n, nOut, tOut);
    if (hasBias) {
      Ops.conv1dBias(x, p[0], p[1], stride, padding, same, dilation, 1, 0, 0, z);
    } else {
      Ops.conv1d(x, p[0], stride, padding, same, dilation, 1, 0, 0, z);
    }
    y = act == Activation.IDENTITY ? z : Activations.forward(act, z, buffer("y", dtype, z.shape()));
    return outView.of(y);
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    Tensor dyn = dyView.of(dy);  // [N, nOut, T']
    Tensor dz = act == Activation.IDENTITY ? dyn : Activations.backward(act, z, y, dyn, buffer("dz", dtype, z.shape()));
    Ops.conv1dBpWeights(x, p[0], dz, stride, padding, same, dilation, 1, 0, 0, g[0]);
    if (hasBias) {
      Ops.conv1dBpBias(dz, 0, g[1]);
    }
    if (!needDx) {
      return null;
    }
    Tensor dx = Ops.conv1dBpData(x, p[0], dz, stride, padding, same, dilation, 1, 0, 0, buffer("dx", dtype, x.shape()));
    if (mask != null) {
      Ops.mul(dx, mask, dx);
    }
    return dxView.of(dx);
  }

  @Override
  public void close() {
    inView.close();
    outView.close();
    dyView.close();
    dxView.close();
    super.close();
  }
}
