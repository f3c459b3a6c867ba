package org.ndrt.nn.layers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;

/**
 * EmbeddingSequenceLayer through the runtime's gather / gather_bp ops. The input comes as the other
 * recurrent layers take theirs, [N, T, 1] (the network's [N, 1, T] features as a permuted view, not
 * cast to the compute dtype), and is read to the host once per forward pass: each index at a valid
 * step is checked (an integer in [0, nIn)) and the indices go to an i64 buffer [N T]; steps past a
 * sequence's length get index 0 and a zero output. Then z = gather(W, idx) [N T, nOut] (+ b), y =
 * act(z) (times the step mask when there is one), handed on as a dense [N, T, nOut] view. Backward:
 * dW = gather_bp(W, idx, dz), a scatter-add into zeros (repeated indices accumulate), db = sum of dz
 * over the rows; the indices have no gradient.
 */
final class EmbeddingSequenceImpl extends LayerImpl {
  private final String name;
  private final long nIn;
  private final long nOut;
  private final boolean hasBias;
  private final long fixedLength;
  private final Activation act;
  private Tensor lengths;
  private long n;
  private long t;
  private Tensor idx;   // i64 [N T]
  private Tensor z;     // [N T, nOut]: W[idx] (+ b)
  private Tensor y;     // act(z)
  private Tensor mask;  // [N T, 1] of 0/1 in the compute dtype, or null when every step is valid

  EmbeddingSequenceImpl(EmbeddingSequenceLayer conf, DType dtype) {
    super(dtype);
    this.name = conf.name();
    this.nIn = conf.nIn();
    this.nOut = conf.nOut();
    this.hasBias = conf.hasBias();
    this.fixedLength = conf.inferInputLength() ? 0 : conf.inputLength();
    this.act = conf.activation();
  }

  @Override
  public List<ParamSpec> params() {
    List<ParamSpec> l = new ArrayList<>();
    l.add(ParamSpec.weight("W", nIn, nOut, nIn, nOut));
    if (hasBias) {
      l.add(ParamSpec.bias("b", 0, false, nOut));
    }
    return l;
  }

  @Override
  public void setSequenceLengths(Tensor lengths) {
    this.lengths = lengths;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("EmbeddingSequenceLayer \"" + name + "\": " + what);
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    long[] s = in.shape();
    if (s.length != 3 || s[2] != 1) {
      throw error("input has shape " + Arrays.toString(s) + " (as [N, T, 1]); the network takes the indices as [N, 1, T]"
          + " or [N, T]");
    }
    if (in.dtype() == DType.BOOL) {
      throw error("the indices must be numbers (float values as in Deeplearning4j, or i32/i64), got " + in.dtype());
    }
    n = s[0];
    t = s[1];
    if (fixedLength > 0 && t != fixedLength) {
      throw error("sequences have " + t + " steps but inputLength is " + fixedLength + " (inferInputLength(false))");
    }
    int rows = Math.toIntExact(n * t);
    long[] len = lengths == null ? null : lengths.toLongArray();
    if (len != null && len.length != n) {
      throw error(len.length + " sequence lengths for " + n + " sequences");
    }
    long[] ix = new long[rows];
    if (in.dtype().isFloatingPoint()) {
      double[] v = in.toDoubleArray();  // row-major over [N, T, 1]: example b, step s at b * T + s
      for (int i = 0; i < rows; ++i) {
        if (valid(len, i)) {
          double d = v[i];
          if (!(d >= 0 && d < nIn) || d != Math.rint(d)) {
            throw badIndex(i, Double.isFinite(d) && d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d));
          }
          ix[i] = (long) d;
        }
      }
    } else {
      long[] v = in.toLongArray();
      for (int i = 0; i < rows; ++i) {
        if (valid(len, i)) {
          if (v[i] < 0 || v[i] >= nIn) {
            throw badIndex(i, Long.toString(v[i]));
          }
          ix[i] = v[i];
        }
      }
    }
    idx = buffer("idx", DType.I64, rows).copyFrom(ix);
    z = Ops.gather(p[0], idx, 0, buffer("z", dtype, rows, nOut));
    if (hasBias) {
      Ops.add(z, p[1], z);
    }
    y = act == Activation.IDENTITY ? z : Activations.forward(act, z, buffer("y", dtype, rows, nOut));
    Tensor out = y;
    mask = null;
    if (len != null) {
      float[] m = new float[rows];
      for (int i = 0; i < rows; ++i) {
        m[i] = valid(len, i) ? 1 : 0;
      }
      try (Tensor mf = Tensor.from(m, rows, 1)) {
        mask = Ops.cast(mf, dtype, buffer("mask", dtype, rows, 1));
      }
      out = Ops.mul(y, mask, buffer("masked", dtype, rows, nOut));
    }
    return view("out", out, n, t, nOut);
  }

  /** Whether row i (example i / T, step i % T) is inside its sequence's length. */
  private boolean valid(long[] len, int i) {
    return len == null || i % t < len[(int) (i / t)];
  }

  private IllegalArgumentException badIndex(int i, String value) {
    return error("index " + value + " at example " + i / t + ", step " + i % t + ": indices must be integers in [0, nIn) = [0, "
        + nIn + ")");
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    long rows = n * t;
    long[] s = dy.shape();
    if (s.length != 3 || s[0] != n || s[1] != t || s[2] != nOut) {
      throw error("the output gradient has shape " + Arrays.toString(s) + ", expected [" + n + ", " + t + ", " + nOut + "]");
    }
    Tensor d = dy.isContiguous() ? dy : Ops.copy(dy, buffer("dyc", dtype, s));
    Tensor d2 = view("dy2", d, rows, nOut);
    if (mask != null) {
      d2 = Ops.mul(d2, mask, buffer("dym", dtype, rows, nOut));
    }
    Tensor dz = Activations.backward(act, z, y, d2, buffer("dz", dtype, rows, nOut));
    Ops.gatherBp(p[0], idx, dz, 0, g[0]);
    if (hasBias) {
      Ops.sum(dz, new long[] {0}, false, g[1]);
    }
    return null;
  }
}
