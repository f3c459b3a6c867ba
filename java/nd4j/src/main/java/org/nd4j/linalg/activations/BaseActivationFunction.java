package org.nd4j.linalg.activations;

import java.util.Arrays;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/**
 * ND4J's base of the activations without parameters. ndrt: each activation is one runtime op and
 * its backward one op; {@link #forwardInPlace} / {@link #backwardInPlace} run them with ND4J's in-place
 * contract.
 */
public abstract class BaseActivationFunction implements IActivation {
  private static final long serialVersionUID = 1L;

  @Override
  public int numParams(int inputSize) {
    return 0;
  }

  protected void assertShape(INDArray in, INDArray epsilon) {
    if (!in.equalShapes(epsilon)) {
      throw new IllegalStateException("Shapes must be equal during backprop: in.shape{} = " + Arrays.toString(in.shape())
          + ", epsilon.shape() = " + Arrays.toString(epsilon.shape()));
    }
  }

  /** {@code in} = op(in): the op writes its output over its input (elementwise ops allow it). */
  protected static INDArray forwardInPlace(INDArray in, BiFunction<Tensor, Tensor, Tensor> op) {
    Tensor t = ArrayCore.tensorOf(in);
    op.apply(t, t);
    return in;
  }

  /** {@code in} = bp(in, epsilon), dL/dz: computed apart, then copied over {@code in}. */
  protected Pair<INDArray, INDArray> backwardInPlace(INDArray in, INDArray epsilon,
      BiFunction<Tensor, Tensor, Tensor> bp) {
    assertShape(in, epsilon);
    Tensor x = ArrayCore.tensorOf(in);
    Tensor e = ArrayCore.tensorOf(epsilon);
    try (Tensor converted = e.dtype() == x.dtype() ? null : e.cast(x.dtype());
         Tensor dz = bp.apply(x, converted == null ? e : converted)) {
      Ops.copy(dz, x);
    }
    return new Pair<>(in, null);
  }

  /** As {@link #backwardInPlace} for ops whose backward takes the output y = f(x). */
  protected Pair<INDArray, INDArray> backwardFromOutput(INDArray in, INDArray epsilon, Function<Tensor, Tensor> f,
      BiFunction<Tensor, Tensor, Tensor> bp) {
    return backwardInPlace(in, epsilon, (x, e) -> {
      try (Tensor y = f.apply(x)) {
        return bp.apply(y, e);
      }
    });
  }
}
