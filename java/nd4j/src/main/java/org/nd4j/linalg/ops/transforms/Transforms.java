package org.nd4j.linalg.ops.transforms;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/**
 * ND4J's elementwise functions and distances, each one or a few runtime ops. {@code dup} true (the
 * default) returns a new array; false writes the result into the argument and returns it.
 */
public class Transforms {
  protected Transforms() {}

  /** A unary runtime op writing {@code out} (null: allocate). */
  @FunctionalInterface
  private interface Unary {
    Tensor apply(Tensor x, Tensor out);
  }

  private static INDArray unary(INDArray x, boolean dup, Unary op) {
    Tensor t = ArrayCore.tensorOf(x);
    if (!dup) {
      op.apply(t, t);
      return x;
    }
    return new NDArray(op.apply(t, null));
  }

  /** A composition of ops computing a new tensor from x. */
  @FunctionalInterface
  private interface Composite {
    Tensor apply(Tensor x);
  }

  private static INDArray composite(INDArray x, boolean dup, Composite f) {
    Tensor t = ArrayCore.tensorOf(x);
    Tensor r = f.apply(t);
    if (!dup) {
      try (r) {
        Ops.copy(r, t);
      }
      return x;
    }
    return new NDArray(r);
  }

  private static Tensor scalar(Tensor like, double v) {
    return Tensor.full(v, like.dtype());
  }

  private static UnsupportedOperationException refused(String name) {
    return new UnsupportedOperationException("ndrt's ND4J drop-in does not implement Transforms." + name);
  }

  // ------------------------------------------------------------------------------- unary maps

  public static INDArray sigmoid(INDArray x) { return sigmoid(x, true); }
  public static INDArray sigmoid(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.sigmoid(a) : Ops.sigmoid(a, o)); }
  public static INDArray tanh(INDArray x) { return tanh(x, true); }
  public static INDArray tanh(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.tanh(a) : Ops.tanh(a, o)); }
  public static INDArray relu(INDArray x) { return relu(x, true); }
  public static INDArray relu(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.relu(a) : Ops.relu(a, o)); }
  public static INDArray exp(INDArray x) { return exp(x, true); }
  public static INDArray exp(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.exp(a) : Ops.exp(a, o)); }
  public static INDArray expm1(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.expm1(a) : Ops.expm1(a, o)); }
  public static INDArray log(INDArray x) { return log(x, true); }
  public static INDArray log(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.log(a) : Ops.log(a, o)); }
  public static INDArray log1p(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.log1p(a) : Ops.log1p(a, o)); }
  public static INDArray abs(INDArray x) { return abs(x, true); }
  public static INDArray abs(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.abs(a) : Ops.abs(a, o)); }
  public static INDArray sqrt(INDArray x) { return sqrt(x, true); }
  public static INDArray sqrt(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.sqrt(a) : Ops.sqrt(a, o)); }
  public static INDArray sin(INDArray x) { return sin(x, true); }
  public static INDArray sin(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.sin(a) : Ops.sin(a, o)); }
  public static INDArray cos(INDArray x) { return cos(x, true); }
  public static INDArray cos(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.cos(a) : Ops.cos(a, o)); }
  public static INDArray floor(INDArray x) { return floor(x, true); }
  public static INDArray floor(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.floor(a) : Ops.floor(a, o)); }
  public static INDArray ceil(INDArray x) { return ceil(x, true); }
  public static INDArray ceil(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.ceil(a) : Ops.ceil(a, o)); }
  public static INDArray ceiling(INDArray x) { return ceil(x, true); }
  public static INDArray ceiling(INDArray x, boolean dup) { return ceil(x, dup); }
  public static INDArray sign(INDArray x) { return sign(x, true); }
  public static INDArray sign(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.sign(a) : Ops.sign(a, o)); }
  public static INDArray neg(INDArray x) { return neg(x, true); }
  public static INDArray neg(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.neg(a) : Ops.neg(a, o)); }
  public static INDArray softPlus(INDArray x) { return softPlus(x, true); }
  public static INDArray softPlus(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.softplus(a) : Ops.softplus(a, 1.0, o)); }
  public static INDArray elu(INDArray x) { return elu(x, true); }
  public static INDArray elu(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.elu(a) : Ops.elu(a, 1.0, o)); }
  public static INDArray leakyRelu(INDArray x) { return leakyRelu(x, 0.01, true); }
  public static INDArray leakyRelu(INDArray x, boolean dup) { return leakyRelu(x, 0.01, dup); }
  public static INDArray leakyRelu(INDArray x, double alpha) { return leakyRelu(x, alpha, true); }

  public static INDArray leakyRelu(INDArray x, double alpha, boolean dup) {
    return unary(x, dup, (a, o) -> o == null ? Ops.leakyRelu(a, alpha) : Ops.leakyRelu(a, alpha, o));
  }

  /** clip to [-1, 1]. */
  public static INDArray hardTanh(INDArray x) { return hardTanh(x, true); }
  public static INDArray hardTanh(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.clip(a, -1, 1) : Ops.clip(a, -1, 1, o)); }
  /** clip to [0, 6]. */
  public static INDArray relu6(INDArray x) { return relu6(x, true); }
  public static INDArray relu6(INDArray x, boolean dup) { return unary(x, dup, (a, o) -> o == null ? Ops.clip(a, 0, 6) : Ops.clip(a, 0, 6, o)); }
  public static INDArray identity(INDArray x) { return identity(x, true); }
  public static INDArray identity(INDArray x, boolean dup) { return dup ? x.dup() : x; }

  /** Rounded half away from zero (as ND4J's round): sign(x) * floor(|x| + 0.5). */
  public static INDArray round(INDArray x) { return round(x, true); }

  public static INDArray round(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor ab = Ops.abs(a); Tensor h = scalar(a, 0.5); Tensor s = Ops.add(ab, h); Tensor f = Ops.floor(s, s);
           Tensor sg = Ops.sign(a)) {
        return Ops.mul(sg, f);
      }
    });
  }

  /** x > 0 as 1 or 0 in x's dtype. */
  public static INDArray step(INDArray x) { return step(x, true); }

  public static INDArray step(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor z = scalar(a, 0); Tensor g = Ops.gt(a, z)) {
        return g.cast(a.dtype());
      }
    });
  }

  /** x / (1 + |x|). */
  public static INDArray softsign(INDArray x) { return softsign(x, true); }

  public static INDArray softsign(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor ab = Ops.abs(a); Tensor one = scalar(a, 1); Tensor d = Ops.add(ab, one, ab)) {
        return Ops.div(a, d);
      }
    });
  }

  /** sin / cos. */
  public static INDArray tan(INDArray x) { return tan(x, true); }

  public static INDArray tan(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor s = Ops.sin(a); Tensor c = Ops.cos(a)) {
        return Ops.div(s, c);
      }
    });
  }

  /** (e^x - e^-x) / 2. */
  public static INDArray sinh(INDArray x) { return sinh(x, true); }
  public static INDArray sinh(INDArray x, boolean dup) { return composite(x, dup, a -> hyperbolic(a, true)); }
  public static INDArray cosh(INDArray x) { return cosh(x, true); }
  public static INDArray cosh(INDArray x, boolean dup) { return composite(x, dup, a -> hyperbolic(a, false)); }

  private static Tensor hyperbolic(Tensor a, boolean sinh) {
    try (Tensor e = Ops.exp(a); Tensor n = Ops.neg(a); Tensor en = Ops.exp(n, n); Tensor half = scalar(a, 0.5);
         Tensor c = sinh ? Ops.sub(e, en) : Ops.add(e, en)) {
      return Ops.mul(c, half);
    }
  }

  /** 0.5 * ln((1 + x) / (1 - x)). */
  public static INDArray atanh(INDArray x) { return atanh(x, true); }

  public static INDArray atanh(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor one = scalar(a, 1); Tensor p = Ops.add(one, a); Tensor m = Ops.sub(one, a); Tensor q = Ops.div(p, m);
           Tensor l = Ops.log(q, q); Tensor half = scalar(a, 0.5)) {
        return Ops.mul(l, half);
      }
    });
  }

  /** clip(0.2 x + 0.5, 0, 1). */
  public static INDArray hardSigmoid(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor k = scalar(a, 0.2); Tensor h = scalar(a, 0.5); Tensor m = Ops.mul(a, k); Tensor s = Ops.add(m, h, m)) {
        return Ops.clip(s, 0, 1);
      }
    });
  }

  /** s * (1 - s) with s = sigmoid(x). */
  public static INDArray sigmoidDerivative(INDArray x) { return sigmoidDerivative(x, true); }

  public static INDArray sigmoidDerivative(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor s = Ops.sigmoid(a); Tensor one = scalar(a, 1); Tensor m = Ops.sub(one, s)) {
        return Ops.mul(s, m);
      }
    });
  }

  /** x * (1 - x). */
  public static INDArray timesOneMinus(INDArray x, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor one = scalar(a, 1); Tensor m = Ops.sub(one, a)) {
        return Ops.mul(a, m);
      }
    });
  }

  /** log of x in {@code base}: ln x / ln base. */
  public static INDArray log(INDArray x, double base) { return log(x, base, true); }

  public static INDArray log(INDArray x, double base, boolean dup) {
    return composite(x, dup, a -> {
      try (Tensor l = Ops.log(a); Tensor b = scalar(a, Math.log(base))) {
        return Ops.div(l, b);
      }
    });
  }

  public static INDArray pow(INDArray x, Number p) { return pow(x, p, true); }

  public static INDArray pow(INDArray x, Number p, boolean dup) {
    Tensor t = ArrayCore.tensorOf(x);
    try (Tensor s = scalar(t, p.doubleValue())) {
      if (!dup) {
        Ops.pow(t, s, t);
        return x;
      }
      return new NDArray(Ops.pow(t, s));
    }
  }

  public static INDArray pow(INDArray x, INDArray p) { return pow(x, p, true); }

  public static INDArray pow(INDArray x, INDArray p, boolean dup) {
    Tensor t = ArrayCore.tensorOf(x);
    INDArray q = p.dataType() == x.dataType() ? p : p.castTo(x.dataType());
    if (!dup) {
      Ops.pow(t, ArrayCore.tensorOf(q), t);
      return x;
    }
    return new NDArray(Ops.pow(t, ArrayCore.tensorOf(q)));
  }

  /** Softmax along the last dimension (the rows of a matrix). */
  public static INDArray softmax(INDArray x) { return softmax(x, true); }

  public static INDArray softmax(INDArray x, boolean dup) {
    long axis = Math.max(0, x.rank() - 1);
    return unary(x, dup, (a, o) -> o == null ? Ops.softmax(a, axis) : Ops.softmax(a, axis, o));
  }

  // ------------------------------------------------------------------------------- with a second operand

  public static INDArray max(INDArray x, double k) { return max(x, k, true); }

  public static INDArray max(INDArray x, double k, boolean dup) {
    Tensor t = ArrayCore.tensorOf(x);
    try (Tensor s = scalar(t, k)) {
      if (!dup) {
        Ops.maximum(t, s, t);
        return x;
      }
      return new NDArray(Ops.maximum(t, s));
    }
  }

  public static INDArray max(INDArray x, INDArray y) { return max(x, y, true); }

  public static INDArray max(INDArray x, INDArray y, boolean dup) {
    INDArray r = new NDArray(Ops.maximum(ArrayCore.tensorOf(x), same(x, y)));
    return dup ? r : x.assign(r);
  }

  public static INDArray min(INDArray x, double k) { return min(x, k, true); }

  public static INDArray min(INDArray x, double k, boolean dup) {
    Tensor t = ArrayCore.tensorOf(x);
    try (Tensor s = scalar(t, k)) {
      if (!dup) {
        Ops.minimum(t, s, t);
        return x;
      }
      return new NDArray(Ops.minimum(t, s));
    }
  }

  public static INDArray min(INDArray x, INDArray y) { return min(x, y, true); }

  public static INDArray min(INDArray x, INDArray y, boolean dup) {
    INDArray r = new NDArray(Ops.minimum(ArrayCore.tensorOf(x), same(x, y)));
    return dup ? r : x.assign(r);
  }

  /** y's tensor in x's dtype. */
  private static Tensor same(INDArray x, INDArray y) {
    return ArrayCore.tensorOf(y.dataType() == x.dataType() ? y : y.castTo(x.dataType()));
  }

  public static INDArray greaterThanOrEqual(INDArray a, INDArray b) {
    return new NDArray(Ops.ge(ArrayCore.tensorOf(a), same(a, b)));
  }

  public static INDArray greaterThanOrEqual(INDArray a, INDArray b, boolean dup) {
    return greaterThanOrEqual(a, b);
  }

  public static INDArray lessThanOrEqual(INDArray a, INDArray b) {
    return new NDArray(Ops.le(ArrayCore.tensorOf(a), same(a, b)));
  }

  public static INDArray lessThanOrEqual(INDArray a, INDArray b, boolean dup) {
    return lessThanOrEqual(a, b);
  }

  /** Logical ops, as BOOL. */
  public static INDArray and(INDArray a, INDArray b) {
    return new NDArray(Ops.logicalAnd(ArrayCore.tensorOf(a), same(a, b)));
  }

  public static INDArray or(INDArray a, INDArray b) {
    return new NDArray(Ops.logicalOr(ArrayCore.tensorOf(a), same(a, b)));
  }

  public static INDArray xor(INDArray a, INDArray b) {
    return new NDArray(Ops.logicalXor(ArrayCore.tensorOf(a), same(a, b)));
  }

  public static INDArray not(INDArray a) {
    return new NDArray(Ops.logicalNot(ArrayCore.tensorOf(a)));
  }

  /** The elements in reverse order (every axis flipped). */
  public static INDArray reverse(INDArray x, boolean dup) {
    long[] axes = new long[x.rank()];
    for (int i = 0; i < axes.length; ++i) {
      axes[i] = i;
    }
    INDArray r = new NDArray(Ops.flip(ArrayCore.tensorOf(x), axes));
    return dup ? r : x.assign(r);
  }

  // ------------------------------------------------------------------------------- vectors and distances

  /** The sum of the elementwise product, as a scalar array. */
  public static INDArray dot(INDArray x, INDArray y) {
    try (Tensor p = Ops.mul(ArrayCore.tensorOf(x), same(x, y))) {
      return new NDArray(Ops.sum(p));
    }
  }

  public static double cosineSim(INDArray x, INDArray y) {
    checkSameLength("cosineSim", x, y);
    try (Tensor a = ArrayCore.tensorOf(x).cast(DType.F64); Tensor b = ArrayCore.tensorOf(y).cast(DType.F64);
         Tensor p = Ops.mul(a, b); Tensor s = Ops.sum(p); Tensor na = Ops.norm2(a); Tensor nb = Ops.norm2(b)) {
      return s.item() / (na.item() * nb.item());
    }
  }

  public static double cosineDistance(INDArray x, INDArray y) {
    return 1 - cosineSim(x, y);
  }

  public static double euclideanDistance(INDArray x, INDArray y) {
    checkSameLength("euclideanDistance", x, y);
    return x.distance2(y);
  }

  public static double manhattanDistance(INDArray x, INDArray y) {
    checkSameLength("manhattanDistance", x, y);
    return x.distance1(y);
  }

  private static void checkSameLength(String what, INDArray x, INDArray y) {
    if (!Arrays.equals(x.shape(), y.shape())) {
      throw new IllegalStateException(what + ": arrays must have the same shape, got " + Arrays.toString(x.shape())
          + " and " + Arrays.toString(y.shape()));
    }
  }

  /** x / ||x||_2. */
  public static INDArray unitVec(INDArray x) {
    return x.div(x.norm2Number());
  }

  /** Each column to mean 0 and (bias-corrected) standard deviation 1, in place (as ND4J). */
  public static INDArray normalizeZeroMeanAndUnitVariance(INDArray x) {
    INDArray mean = x.mean(0);
    INDArray std = x.std(0).addi(1e-5);
    x.subiRowVector(mean);
    x.diviRowVector(std);
    return x;
  }

  // ------------------------------------------------------------------------------- refused

  public static INDArray acos(INDArray x) { throw refused("acos"); }
  public static INDArray acos(INDArray x, boolean dup) { throw refused("acos"); }
  public static INDArray asin(INDArray x) { throw refused("asin"); }
  public static INDArray asin(INDArray x, boolean dup) { throw refused("asin"); }
  public static INDArray atan(INDArray x) { throw refused("atan"); }
  public static INDArray atan(INDArray x, boolean dup) { throw refused("atan"); }
  public static INDArray atan2(INDArray x, INDArray y) { throw refused("atan2"); }
  public static INDArray cross(INDArray x, INDArray y) { throw refused("cross"); }
  public static INDArray isMax(INDArray x) { throw refused("isMax"); }
  public static INDArray mpow(INDArray x, int n, boolean dup) { throw refused("mpow"); }
  public static double hammingDistance(INDArray x, INDArray y) { throw refused("hammingDistance"); }
  public static double jaccardDistance(INDArray x, INDArray y) { throw refused("jaccardDistance"); }
  public static INDArray stabilize(INDArray x, double k) { throw refused("stabilize"); }
  public static INDArray eps(INDArray x) { throw refused("eps"); }
}
