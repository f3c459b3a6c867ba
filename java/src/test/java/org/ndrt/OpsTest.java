package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.ndrt.capi.NdrtC;

/** The generated Ops class covers the registry, and its methods run the ops. */
class OpsTest {
  /** The Java method name gen_ops.py gives an op (snake_case to lowerCamelCase). */
  static String javaName(String op) {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char c : op.toCharArray()) {
      if (!Character.isLetterOrDigit(c)) {
        up = b.length() > 0;
        continue;
      }
      b.append(up ? Character.toUpperCase(c) : (b.length() == 0 ? Character.toLowerCase(c) : c));
      up = false;
    }
    return b.toString();
  }

  @Test
  void aMethodForEveryRegisteredOp() {
    int count = NdrtC.op_count();
    List<String> names = Ndrt.opNames();
    assertEquals(count, names.size());
    assertEquals(names, Ops.GENERATED_OPS, "Ops was generated from this registry, in id order");
    List<String> missing = new ArrayList<>();
    for (String op : names) {
      String m = javaName(op);
      boolean found = false;
      for (Method method : Ops.class.getMethods()) {
        if (Modifier.isStatic(method.getModifiers())
            && (method.getName().equals(m) || method.getName().equals(m + "_"))) {
          found = true;
          break;
        }
      }
      if (!found) {
        missing.add(op + " (Ops." + m + ")");
      }
    }
    assertTrue(missing.isEmpty(), "ops without a generated method: " + missing);
  }

  static float[] f(Tensor t) {
    return t.toFloatArray();
  }

  @Test
  void elementwise() {
    try (Tensor a = Tensor.from(new float[] {1, -2, 3, -4, 5, -6}, 2, 3);
        Tensor b = Tensor.from(new float[] {10, 20, 30}, 3)) { // broadcast over rows
      try (Tensor y = Ops.add(a, b)) {
        assertArrayEquals(new float[] {11, 18, 33, 6, 25, 24}, f(y));
      }
      try (Tensor y = Ops.sub(a, b)) {
        assertArrayEquals(new float[] {-9, -22, -27, -14, -15, -36}, f(y));
      }
      try (Tensor y = Ops.mul(a, b)) {
        assertArrayEquals(new float[] {10, -40, 90, -40, 100, -180}, f(y));
      }
      try (Tensor y = Ops.div(a, b)) {
        assertArrayEquals(new float[] {0.1f, -0.1f, 0.1f, -0.4f, 0.25f, -0.2f}, f(y), 1e-7f);
      }
      try (Tensor y = Ops.neg(a)) {
        assertArrayEquals(new float[] {-1, 2, -3, 4, -5, 6}, f(y));
      }
      try (Tensor y = Ops.relu(a)) {
        assertArrayEquals(new float[] {1, 0, 3, 0, 5, 0}, f(y));
      }
      try (Tensor y = Ops.exp(b); Tensor z = Ops.log(y)) {
        assertArrayEquals(new float[] {10, 20, 30}, f(z), 1e-5f);
      }
    }
  }

  @Test
  void givenOutputsAndInPlace() {
    try (Tensor a = Tensor.from(new double[] {1, 2, 3}, 3);
        Tensor b = Tensor.from(new double[] {4, 5, 6}, 3);
        Tensor y = Tensor.empty(DType.F64, 3)) {
      assertSame(y, Ops.add(a, b, y), "the given output comes back");
      assertArrayEquals(new double[] {5, 7, 9}, y.toDoubleArray());
      assertSame(a, Ops.mul(a, b, a), "add/mul run in place when the output is the input view");
      assertArrayEquals(new double[] {4, 10, 18}, a.toDoubleArray());
      try (Tensor z = Ops.add(a, b, null)) { // null output: allocated
        assertArrayEquals(new double[] {8, 15, 24}, z.toDoubleArray());
      }
      try (Tensor wrong = Tensor.empty(DType.F64, 4)) {
        assertThrows(ShapeException.class, () -> Ops.add(a, b, wrong));
      }
    }
  }

  @Test
  void reductionsWithAttributes() {
    try (Tensor x = Tensor.arange(0, 24, 1, DType.F32).reshape(2, 3, 4)) {
      try (Tensor s = Ops.sum(x)) {
        assertEquals(0, s.rank());
        assertEquals(276.0, s.item());
      }
      try (Tensor s = Ops.sum(x, new long[] {0, 2})) {
        assertArrayEquals(new long[] {3}, s.shape());
        assertArrayEquals(new float[] {60, 92, 124}, f(s));
      }
      try (Tensor s = Ops.sum(x, new long[] {1}, true)) {
        assertArrayEquals(new long[] {2, 1, 4}, s.shape());
      }
      try (Tensor m = Ops.mean(x, new long[] {-1})) {
        assertArrayEquals(new float[] {1.5f, 5.5f, 9.5f, 13.5f, 17.5f, 21.5f}, f(m));
      }
      try (Tensor m = Ops.max(x, new long[] {0, 1}, false)) {
        assertArrayEquals(new float[] {20, 21, 22, 23}, f(m));
      }
      try (Tensor out = Tensor.empty(DType.F32, 2, 1, 1)) {
        Ops.sum(x, new long[] {1, 2}, true, out);
        assertArrayEquals(new float[] {66, 210}, f(out));
      }
      // attributes by name
      try (Tensor s = Ops.sum(x, new Ops.SumAttrs().axes(0, 2))) {
        assertArrayEquals(new float[] {60, 92, 124}, f(s));
      }
      try (Tensor out = Tensor.empty(DType.F32, 1, 3, 1)) {
        Ops.sum(x, new Ops.SumAttrs().keepdims(true).axes(0, 2), out);
        assertArrayEquals(new float[] {60, 92, 124}, f(out));
      }
    }
  }

  @Test
  void matmulWithTransposes() {
    try (Tensor a = Tensor.from(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor b = Tensor.from(new float[] {1, 0, 0, 1, 1, 1}, 3, 2)) {
      try (Tensor y = Ops.matmul(a, b)) {
        assertArrayEquals(new long[] {2, 2}, y.shape());
        assertArrayEquals(new float[] {4, 5, 10, 11}, f(y));
      }
      try (Tensor y = Ops.matmul(a, a, false, true)) { // a @ a^T
        assertArrayEquals(new float[] {14, 32, 32, 77}, f(y));
      }
      try (Tensor y = Ops.matmul(a, a, true)) { // a^T @ a: [3,2]x[2,3]
        assertArrayEquals(new long[] {3, 3}, y.shape());
        assertArrayEquals(new float[] {17, 22, 27, 22, 29, 36, 27, 36, 45}, f(y));
      }
    }
  }

  @Test
  void creationOps() {
    try (Tensor y = Ops.fill(2.5, DType.F64, new long[] {2, 2})) {
      assertArrayEquals(new double[] {2.5, 2.5, 2.5, 2.5}, y.toDoubleArray());
      assertEquals(DType.F64, y.dtype());
    }
    try (Tensor y = Ops.fill(7)) { // defaults: f32 scalar
      assertEquals(DType.F32, y.dtype());
      assertEquals(0, y.rank());
      assertEquals(7.0, y.item());
    }
    try (Tensor x = Tensor.from(new float[] {1.7f, -2.7f}, 2);
        Tensor c = Ops.cast(x, new Ops.CastAttrs(DType.I32));
        Tensor d = Ops.copy(c)) {
      assertArrayEquals(new int[] {1, -2}, d.toIntArray());
    }
  }

  @Test
  void generatedJavadocAndDescription() {
    String json = Ndrt.describeOp("sum");
    assertTrue(json.contains("\"name\":\"sum\""), json);
    assertTrue(json.contains("\"axes\""), json);
    assertNotNull(Arrays.stream(Ops.class.getMethods()).filter(m -> m.getName().equals("sum")).findAny().orElse(null));
  }
}
