package org.ndrt.nn.graph;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.graph.ElementWiseVertex.Op;

/** ElementWiseVertex: Add, Subtract, Product, Average, Max over inputs of one shape. */
final class ElementWiseImpl extends VertexImpl {
  private final Op op;
  private Tensor[] x = new Tensor[0];
  private Tensor y;

  ElementWiseImpl(Op op, DType dtype) {
    super(dtype);
    this.op = op;
  }

  @Override
  public org.ndrt.nn.layers.ChannelsLast.Role channelsLastRole() {
    return org.ndrt.nn.layers.ChannelsLast.Role.FOLLOWS_INPUT;
  }

  @Override
  public Tensor forward(Tensor[] in, boolean training) {
    x = in.clone();
    y = buffer("y", dtype, in[0].shape());
    if (in.length == 1) {
      return Ops.copy(in[0], y);
    }
    switch (op) {
      case Subtract:
        return Ops.sub(in[0], in[1], y);
      case Product:
        Ops.mul(in[0], in[1], y);
        for (int i = 2; i < in.length; ++i) {
          Ops.mul(y, in[i], y);
        }
        return y;
      case Max:
        Ops.maximum(in[0], in[1], y);
        for (int i = 2; i < in.length; ++i) {
          Ops.maximum(y, in[i], y);
        }
        return y;
      default:  // Add, Average
        Ops.add(in[0], in[1], y);
        for (int i = 2; i < in.length; ++i) {
          Ops.add(y, in[i], y);
        }
        return op == Op.Average ? Ops.mul(y, scalar("inv", 1.0 / in.length), y) : y;
    }
  }

  private Tensor scalar(String key, double v) {
    return buffer(key, dtype).fill(v);
  }

  @Override
  public Tensor[] backward(Tensor dy) {
    int n = x.length;
    Tensor[] dx = new Tensor[n];
    switch (op) {
      case Add:
        java.util.Arrays.fill(dx, dy);
        return dx;
      case Average: {
        Tensor d = Ops.mul(dy, scalar("inv", 1.0 / n), buffer("d", dtype, dy.shape()));
        java.util.Arrays.fill(dx, d);
        return dx;
      }
      case Subtract:
        dx[0] = dy;
        if (n > 1) {
          dx[1] = Ops.neg(dy, buffer("d1", dtype, dy.shape()));
        }
        return dx;
      case Product:
        for (int i = 0; i < n; ++i) {  // dy times every other input
          Tensor d = buffer("d" + i, dtype, dy.shape());
          Ops.copy(dy, d);
          for (int j = 0; j < n; ++j) {
            if (j != i) {
              Ops.mul(d, x[j], d);
            }
          }
          dx[i] = d;
        }
        return dx;
      default: {  // Max: the gradient goes to the first input holding the maximum
        Tensor zero = scalar("zero", 0);
        Tensor taken = buffer("taken", DType.BOOL, dy.shape()).fill(0);
        Tensor here = buffer("here", DType.BOOL, dy.shape());
        Tensor notTaken = buffer("free", DType.BOOL, dy.shape());
        for (int i = 0; i < n; ++i) {
          Ops.eq(x[i], y, here);
          Ops.logicalNot(taken, notTaken);
          Ops.logicalAnd(here, notTaken, here);
          Ops.logicalOr(taken, here, taken);
          dx[i] = Ops.where(here, dy, zero, buffer("d" + i, dtype, dy.shape()));
        }
        return dx;
      }
    }
  }
}
