package org.ndrt.nn;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Distribution;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.Bidirectional;
import org.ndrt.nn.conf.layers.GRU;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.LastTimeStep;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.conf.layers.VariationalAutoencoder;
import org.ndrt.nn.layers.ParamSpec;

/**
 * The starting values of a layer's parameters: weights by the layer's {@link WeightInit} (Deeplearning4j's
 * formulas, see there) or {@link Distribution}, biases by the layer's biasInit. Random numbers come from
 * the Philox stream of the network's seed, each weight from its own range of it (offset), so they do
 * not depend on the thread count or device; the schemes that need more numbers than elements
 * (binomial) draw the extra ones from streams keyed by seeds derived from the network's.
 */
final class ParamInit {
  private ParamInit() {}

  /** The layer whose settings a wrapper's parameters follow (Bidirectional, LastTimeStep: the wrapped one). */
  static Layer source(Layer l) {
    if (l instanceof Bidirectional) {
      return source(((Bidirectional) l).getFwd());
    }
    if (l instanceof LastTimeStep) {
      return source(((LastTimeStep) l).getUnderlying());
    }
    return l;
  }

  /** Fills weight {@code w} (f32, shape s.shape) for layer {@code conf}, from stream elements offset... */
  static void weight(Tensor w, ParamSpec s, Layer conf, long seed, long offset) {
    Layer src = source(conf);
    WeightInit init = src.weightInit();
    double fanIn = s.fanIn;
    double fanOut = s.fanOut;
    switch (init) {
      case ZERO: w.fill(0); break;
      case ONES: w.fill(1); break;
      case SIGMOID_UNIFORM: uniform(w, s, 4 * Math.sqrt(6 / (fanIn + fanOut)), seed, offset); break;
      case NORMAL:
      case LECUN_NORMAL:
      case XAVIER_FAN_IN: normal(w, s, 1 / Math.sqrt(fanIn), seed, offset); break;
      case LECUN_UNIFORM:
      case VAR_SCALING_UNIFORM_FAN_IN: uniform(w, s, 3 / Math.sqrt(fanIn), seed, offset); break;
      case UNIFORM: uniform(w, s, 1 / Math.sqrt(fanIn), seed, offset); break;
      case XAVIER: normal(w, s, Math.sqrt(2 / (fanIn + fanOut)), seed, offset); break;
      case XAVIER_UNIFORM: uniform(w, s, Math.sqrt(6 / (fanIn + fanOut)), seed, offset); break;
      case XAVIER_LEGACY: normal(w, s, 1 / Math.sqrt(s.shape[0] + (s.shape.length > 1 ? s.shape[1] : 0)), seed, offset); break;
      case RELU: normal(w, s, Math.sqrt(2 / fanIn), seed, offset); break;
      case RELU_UNIFORM: uniform(w, s, Math.sqrt(6 / fanIn), seed, offset); break;
      case IDENTITY: identity(w, s, src); break;
      case VAR_SCALING_NORMAL_FAN_IN: truncated(w, s, 0, Math.sqrt(1 / fanIn), seed, offset); break;
      case VAR_SCALING_NORMAL_FAN_OUT: truncated(w, s, 0, Math.sqrt(1 / fanOut), seed, offset); break;
      case VAR_SCALING_NORMAL_FAN_AVG: truncated(w, s, 0, Math.sqrt(2 / (fanIn + fanOut)), seed, offset); break;
      case VAR_SCALING_UNIFORM_FAN_OUT: uniform(w, s, 3 / Math.sqrt(fanOut), seed, offset); break;
      case VAR_SCALING_UNIFORM_FAN_AVG: uniform(w, s, 3 / Math.sqrt((fanIn + fanOut) / 2), seed, offset); break;
      case DISTRIBUTION: distribution(w, s, src, seed, offset); break;
      default: throw new IllegalStateException("weight init " + init);
    }
  }

  /**
   * Fills bias {@code b} (shape s.shape): the layer's biasInit, else the layer's own value(s). As in
   * Deeplearning4j, LSTM, GRU and VariationalAutoencoder biases ignore biasInit (an LSTM's are 0 but the
   * forget gate's forgetGateBiasInit), and batch-norm gamma / beta (f32Only) keep theirs.
   */
  static void bias(Tensor b, ParamSpec s, Layer conf) {
    Layer src = source(conf);
    boolean own = src instanceof LSTM || src instanceof GRU || src instanceof VariationalAutoencoder || s.f32Only;
    double bi = src.biasInit();
    if (s.blockInit == null) {
      b.fill(!own && !Double.isNaN(bi) ? bi : s.initValue);
      return;
    }
    long block = s.numel() / s.blockInit.length;
    try (Tensor flat = b.reshape(s.numel())) {
      for (int k = 0; k < s.blockInit.length; ++k) {
        try (Tensor part = flat.slice(0, k * block, (k + 1) * block)) {
          part.fill(s.blockInit[k]);
        }
      }
    }
  }

  private static void uniform(Tensor w, ParamSpec s, double a, long seed, long offset) {
    Ops.uniform(-a, a, seed, offset, DType.F32, s.shape, w);
  }

  private static void normal(Tensor w, ParamSpec s, double std, long seed, long offset) {
    Ops.normal(0, std, seed, offset, DType.F32, s.shape, w);
  }

  /** Normal(mean, std) truncated at mean +- 2 std (ND4J's TruncatedNormalDistribution). */
  private static void truncated(Tensor w, ParamSpec s, double mean, double std, long seed, long offset) {
    Ops.truncatedNormal(mean, std, -2, 2, seed, offset, DType.F32, s.shape, w);
  }

  private static void distribution(Tensor w, ParamSpec s, Layer src, long seed, long offset) {
    Distribution d = src.distribution();
    if (d == null) {
      throw new IllegalArgumentException(src.getClass().getSimpleName() + " \"" + src.name()
          + "\": weightInit DISTRIBUTION without a distribution: use weightInit(Distribution)");
    }
    switch (d.kind) {
      case UNIFORM: Ops.uniform(d.a, d.b, seed, offset, DType.F32, s.shape, w); break;
      case NORMAL: Ops.normal(d.a, d.b, seed, offset, DType.F32, s.shape, w); break;
      case TRUNCATED_NORMAL: truncated(w, s, d.a, d.b, seed, offset); break;
      case LOG_NORMAL:
        Ops.normal(d.a, d.b, seed, offset, DType.F32, s.shape, w);
        Ops.exp(w, w);
        break;
      case BINOMIAL: binomial(w, s, (int) d.a, d.b, seed, offset); break;
      case ORTHOGONAL: orthogonal(w, s, d.a, seed, offset); break;
      case CONSTANT: w.fill(d.a); break;
      default: throw new IllegalStateException("distribution " + d);
    }
  }

  /** The sum of {@code trials} Bernoulli(p) draws, trial k from the stream of seed + (k + 1) * golden ratio. */
  private static void binomial(Tensor w, ParamSpec s, int trials, double p, long seed, long offset) {
    w.fill(0);
    try (Tensor draw = Tensor.zeros(DType.F32, s.shape)) {
      for (int k = 0; k < trials; ++k) {
        Ops.bernoulli(p, seed + (k + 1) * 0x9E3779B97F4A7C15L, offset, DType.F32, s.shape, draw);
        Ops.add(w, draw, w);
      }
    }
  }

  /**
   * Deeplearning4j's OrthogonalDistribution: the weights flattened to [rows = shape[0], cols = the rest]
   * form gain times a matrix with orthonormal columns (rows >= cols) or rows (rows fewer than cols): modified
   * Gram-Schmidt, in double, of a standard normal matrix (a uniformly random orthogonal basis).
   */
  private static void orthogonal(Tensor w, ParamSpec s, double gain, long seed, long offset) {
    int rows = (int) s.shape[0];
    int cols = (int) (s.numel() / rows);
    boolean tall = rows >= cols;
    int m = tall ? rows : cols;  // orthonormalise the n columns of an m x n matrix (n <= m)
    int n = tall ? cols : rows;
    float[] g;
    try (Tensor z = Ops.normal(0, 1, seed, offset, DType.F32, new long[] {n, m})) {
      g = z.toFloatArray();
    }
    double[][] q = new double[n][m];  // q[j] = column j
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        q[j][i] = g[j * m + i];
      }
      for (int k = 0; k < j; ++k) {
        double dot = 0;
        for (int i = 0; i < m; ++i) {
          dot += q[k][i] * q[j][i];
        }
        for (int i = 0; i < m; ++i) {
          q[j][i] -= dot * q[k][i];
        }
      }
      double norm = 0;
      for (int i = 0; i < m; ++i) {
        norm += q[j][i] * q[j][i];
      }
      norm = Math.sqrt(norm);
      for (int i = 0; i < m; ++i) {
        q[j][i] /= norm;
      }
    }
    float[] out = new float[rows * cols];
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        out[r * cols + c] = (float) (gain * (tall ? q[c][r] : q[r][c]));
      }
    }
    w.copyFrom(out);
  }

  /** Deeplearning4j's IDENTITY: a square matrix, or a convolution [c, c, k...] with odd k (1 at the centre). */
  private static void identity(Tensor w, ParamSpec s, Layer src) {
    long[] sh = s.shape;
    boolean ok = sh.length >= 2 && sh[0] == sh[1];
    for (int d = 2; d < sh.length; ++d) {
      ok &= sh[d] % 2 == 1;
    }
    if (!ok) {
      throw new IllegalArgumentException(src.getClass().getSimpleName() + " \"" + src.name() + "\": WeightInit.IDENTITY"
          + " needs a square weight matrix or a convolution with nIn == nOut and odd kernel sizes; parameter " + s.name
          + " has shape " + java.util.Arrays.toString(sh));
    }
    long inner = s.numel() / (sh[0] * sh[1]);  // kernel elements per (out, in) pair
    long centre = 0;
    for (int d = 2; d < sh.length; ++d) {
      centre = centre * sh[d] + sh[d] / 2;
    }
    float[] out = new float[(int) s.numel()];
    for (long c = 0; c < sh[0]; ++c) {
      out[(int) ((c * sh[1] + c) * inner + centre)] = 1;
    }
    w.copyFrom(out);
  }
}
