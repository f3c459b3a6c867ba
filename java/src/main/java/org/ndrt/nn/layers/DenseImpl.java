package org.ndrt.nn.layers;

import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.layers.DenseLayer;

/**
 * The fused linear op (x W + b with the activation in the GEMM epilogue) and linear_bp; activations
 * the op does not fuse (softmax, elu, gelu) run as their own op after it.
 */
class DenseImpl extends LayerImpl {
  protected final long nIn;
  protected final long nOut;
  protected final Activation act;
  private final int fusedCode;
  protected Tensor x2;  // the input as [N, nIn]
  private Tensor xIn;
  protected Tensor z;
  protected Tensor y;

  DenseImpl(DenseLayer conf, DType dtype) {
    super(dtype);
    this.nIn = conf.nIn();
    this.nOut = conf.nOut();
    this.act = conf.activation();
    this.fusedCode = act.linearCode();
  }

  @Override
  public List<ParamSpec> params() {
    return List.of(ParamSpec.weight("W", nIn, nOut, nIn, nOut), ParamSpec.bias("b", 0, false, nOut));
  }

  /** x as rows [N, nIn] (image input is flattened: a view, the buffers are contiguous). */
  protected Tensor rows(Tensor in) {
    xIn = in;
    return in.rank() == 2 ? in : view("x2", in, in.shape()[0], nIn);
  }

  /** z = x W + b with the fused activation code (0 = none). */
  protected Tensor linear(Tensor in, int code, String key) {
    x2 = rows(in);
    Tensor out = buffer(key, dtype, x2.shape()[0], nOut);
    return Ops.linear(x2, p[0], p[1], false, code, Activations.LEAKY_ALPHA, out);
  }

  @Override
  public Tensor forward(Tensor in, boolean training) {
    if (fusedCode >= 0) {
      z = null;
      y = linear(in, fusedCode, "y");
      return y;
    }
    z = linear(in, 0, "z");
    y = Activations.forward(act, z, buffer("y", dtype, z.shape()));
    return y;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    if (fusedCode >= 0) {
      return linearBackward(y, dy, fusedCode);
    }
    Tensor dz = Activations.backward(act, z, y, dy, buffer("dz", dtype, z.shape()));
    return linearBackward(z, dz, 0);
  }

  /** linear_bp from the op's output {@code out} and its gradient; dx shaped like the layer's input. */
  protected Tensor linearBackward(Tensor out, Tensor dout, int code) {
    Tensor dx2 = buffer("dx", dtype, x2.shape());
    Ops.linearBp(x2, p[0], p[1], out, dout, false, code, Activations.LEAKY_ALPHA, dx2, g[0], g[1]);
    return xIn.rank() == 2 ? dx2 : view("dx4", dx2, xIn.shape());
  }
}
