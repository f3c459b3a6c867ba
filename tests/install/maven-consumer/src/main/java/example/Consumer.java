package example;

import org.ndrt.Ndrt;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/** Adds two tensors with org.ndrt.Ops and checks every element against the sum computed here. */
public final class Consumer {
  private Consumer() {}

  public static void main(String[] args) {
    float[] a = new float[15];
    float[] b = new float[15];
    for (int i = 0; i < a.length; ++i) {
      a[i] = 0.25f * i - 1.0f;
      b[i] = 3.0f - 0.5f * (i % 4);
    }
    float[] y;
    try (Tensor ta = Tensor.from(a, 3, 5);
         Tensor tb = Tensor.from(b, 3, 5);
         Tensor ty = Ops.add(ta, tb)) {
      long[] shape = ty.shape();
      if (shape.length != 2 || shape[0] != 3 || shape[1] != 5) {
        throw new AssertionError("shape " + java.util.Arrays.toString(shape) + ", want [3, 5]");
      }
      y = ty.toFloatArray();
    }
    if (y.length != a.length) {
      throw new AssertionError(y.length + " elements, want " + a.length);
    }
    for (int i = 0; i < y.length; ++i) {
      if (y[i] != a[i] + b[i]) {
        throw new AssertionError("element " + i + ": " + y[i] + ", want " + (a[i] + b[i]));
      }
    }
    System.out.println("ndrt " + Ndrt.version() + " from Maven: " + y.length + " sums correct");
  }
}
