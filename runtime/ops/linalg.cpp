// Op definitions, linalg family: matmul, gemm, and the fused dense layer linear / linear_bp.
#include <cmath>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kTransA = 0, kTransB = 1, kAlpha = 2, kBeta = 3 };           // matmul, gemm
enum { kTransW = 0, kActivation = 1, kSlope = 2 };                    // linear, linear_bp

// Shape of op(a) @ op(b) with numpy-broadcast batch axes (matmul's rule; gemm shares it).
Dims product_shape(const OpContext& c) {
  const char* name = c.op->name;
  const Tensor &a = *c.in[0], &b = *c.in[1];
  if (a.rank() < 2 || b.rank() < 2)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: inputs need rank >= 2, got %s and %s", name, a.shape.str().c_str(),
         b.shape.str().c_str());
  bool ta = c.attrs.get_bool(kTransA), tb = c.attrs.get_bool(kTransB);
  int64_t m = a.shape.d[a.rank() - (ta ? 1 : 2)], ka = a.shape.d[a.rank() - (ta ? 2 : 1)];
  int64_t kb = b.shape.d[b.rank() - (tb ? 1 : 2)], n = b.shape.d[b.rank() - (tb ? 2 : 1)];
  if (ka != kb)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: inner sizes differ: %s%s x %s%s", name, a.shape.str().c_str(), ta ? "^T" : "",
         b.shape.str().c_str(), tb ? "^T" : "");
  Dims ba = a.shape, bb = b.shape;
  ba.rank -= 2;
  bb.rank -= 2;
  // The op name alone: building a longer label here would allocate on every call.
  Dims s = broadcast_shapes(name, ba, bb);
  s.d[s.rank++] = m;
  s.d[s.rank++] = n;
  return s;
}

void infer_matmul(OpContext& c) {
  require_same_dtype(c);
  c.spec[0] = {c.in[0]->dtype, product_shape(c)};
}

void require_finite(const OpContext& c, int attr) {
  double v = c.attrs.get_float(attr);
  if (!std::isfinite(v))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %s must be finite, got %g", c.op->name, c.op->attrs[size_t(attr)].name, v);
}

void infer_gemm(OpContext& c) {
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  require_finite(c, kAlpha);
  require_finite(c, kBeta);
  Dims s = product_shape(c);
  const Tensor& cc = *c.in[2];
  bool fits = cc.rank() <= s.rank;
  for (int i = 0; fits && i < cc.rank(); ++i) {
    int64_t d = cc.shape.d[i], o = s.d[s.rank - cc.rank() + i];
    fits = d == o || d == 1;
  }
  if (!fits)
    fail(NDRT_ERR_SHAPE_MISMATCH, "gemm: c of shape %s does not broadcast to the output shape %s",
         cc.shape.str().c_str(), s.str().c_str());
  // y may be c's own view (dispatch checks "the very same view"), never memory of a or b.
  if (c.out[0])
    for (int i = 0; i < 2; ++i)
      if (c.out[0]->overlaps(*c.in[i]))
        fail(NDRT_ERR_INVALID_ARGUMENT, "gemm: output y shares memory with input %s; only c may be updated in place",
             i == 0 ? "a" : "b");
  c.spec[0] = {c.in[0]->dtype, s};
}

// x [N, K], w [K, M] (or [M, K] with transpose_w), b [M]; checks attributes; returns N, K, M.
void check_linear(const OpContext& c, int64_t& N, int64_t& K, int64_t& M) {
  const char* name = c.op->name;
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  const Tensor &x = *c.in[0], &w = *c.in[1], &b = *c.in[2];
  const bool tw = c.attrs.get_bool(kTransW);
  if (x.rank() != 2) fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x must be a matrix [N, K], got %s", name, x.shape.str().c_str());
  if (w.rank() != 2)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: w must be a matrix ([K, M], or [M, K] with transpose_w), got %s", name,
         w.shape.str().c_str());
  N = x.shape.d[0];
  K = x.shape.d[1];
  const int64_t wk = w.shape.d[tw ? 1 : 0];
  M = w.shape.d[tw ? 0 : 1];
  if (wk != K)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x %s and w %s disagree on K (w is %s with transpose_w = %s)", name,
         x.shape.str().c_str(), w.shape.str().c_str(), tw ? "[M, K]" : "[K, M]", tw ? "true" : "false");
  if (b.rank() != 1 || b.shape.d[0] != M)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: b must have shape [%lld] (M), got %s", name, (long long)M, b.shape.str().c_str());
  const int64_t act = c.attrs.get_int(kActivation);
  if (act < 0 || act > 5)
    fail(NDRT_ERR_INVALID_ARGUMENT,
         "%s: activation %lld is not one of 0 none, 1 relu, 2 sigmoid, 3 tanh, 4 leaky_relu, 5 gelu", name,
         (long long)act);
  const double alpha = c.attrs.get_float(kSlope);
  if (!std::isfinite(alpha) || alpha < 0)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: alpha (the leaky_relu slope) must be finite and >= 0, got %g", name, alpha);
}

void infer_linear(OpContext& c) {
  int64_t N, K, M;
  check_linear(c, N, K, M);
  Dims y{};
  y.rank = 2;
  y.d[0] = N;
  y.d[1] = M;
  c.spec[0] = {c.in[0]->dtype, y};
}

void infer_linear_bp(OpContext& c) {
  int64_t N, K, M;
  check_linear(c, N, K, M);
  Dims nm{};
  nm.rank = 2;
  nm.d[0] = N;
  nm.d[1] = M;
  for (int i = 3; i < 5; ++i)
    if (c.in[i]->shape != nm)
      fail(NDRT_ERR_SHAPE_MISMATCH, "linear_bp: %s must have linear's output shape %s, got %s", i == 3 ? "y" : "dy",
           nm.str().c_str(), c.in[i]->shape.str().c_str());
  // Dispatch checks outputs against inputs, not against each other: two outputs on one memory
  // would overwrite each other.
  for (int o = 1; o < 3; ++o)
    for (int q = 0; q < o; ++q)
      if (c.out[o] && c.out[q] && c.out[o]->overlaps(*c.out[q]))
        fail(NDRT_ERR_INVALID_ARGUMENT, "linear_bp: outputs %s and %s share memory", c.op->outputs[size_t(q)],
             c.op->outputs[size_t(o)]);
  Dims mv{};
  mv.rank = 1;
  mv.d[0] = M;
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
  c.spec[1] = {c.in[0]->dtype, c.in[1]->shape};
  c.spec[2] = {c.in[0]->dtype, mv};
}

}  // namespace

void define_linalg_ops(Registry& r) {
  r.define({"matmul",
            "y = op(a) @ op(b) where op transposes the last two axes when transpose_a/transpose_b is set; "
            "rank >= 2, batch axes broadcast. dtypes f32, f64 (OpenBLAS, threads from cpu.threads); f16 computes in "
            "f32 and rounds once (impl ndrt:f16-via-sgemm); bf16 runs oneDNN's matmul where the CPU has bf16 "
            "instructions (impl onednn:matmul-bf16; f32 accumulation, one rounding), else like f16 "
            "(ndrt:bf16-via-sgemm).",
            {"a", "b"},
            {"y"},
            {attr_bool("transpose_a", false), attr_bool("transpose_b", false)},
            infer_matmul});
  r.define({"gemm",
            "y = alpha * op(a) @ op(b) + beta * c (BLAS gemm). op transposes the last two axes when transpose_a / "
            "transpose_b is set; a and b have rank >= 2 with broadcasting batch axes, as matmul; c broadcasts to "
            "y's shape [..., M, N] by numpy rules (e.g. a bias row [N]). Attributes transpose_a, transpose_b (bool, "
            "default false), alpha, beta (float, default 1.0, finite). beta = 0 does not read c (NaN in c does not "
            "propagate); alpha = 0 or an inner size of 0 gives y = beta * c. In place: y may be given as c's own "
            "view (the same handle), then c is updated; y may not share memory with a or b. dtypes f32, f64 "
            "(OpenBLAS, beta folded into the BLAS call); f16, bf16 compute in f32 and round once (impl "
            "ndrt:f16-via-sgemm / ndrt:bf16-via-sgemm).",
            {"a", "b", "c"},
            {"y"},
            {attr_bool("transpose_a", false), attr_bool("transpose_b", false), attr_float("alpha", 1.0),
             attr_float("beta", 1.0)},
            infer_gemm})
      .inplace = true;
  r.define({"linear",
            "Fused dense layer: y = act(x @ W + b) with W = w ([K, M]), or W = w^T when transpose_w (w stored "
            "[M, K], as torch.nn.Linear's weight). x [N, K], b [M], y [N, M]. One GEMM whose tiles start from the "
            "bias, then the activation over each tile while it is in cache. activation (int, default 0): 0 none, "
            "1 relu (max(z, 0); NaN passes), 2 sigmoid, 3 tanh, 4 leaky_relu (z for z >= 0, alpha * z below), 5 gelu "
            "(exact form z * Phi(z), torch's default). alpha (float, default 0.01, finite, >= 0): the leaky_relu "
            "slope. dtypes f32, f64 (OpenBLAS); f16, bf16 convert the operands to f32, run the f32 GEMM (f32 "
            "accumulation) and the bias/activation epilogue in f32, and round y once (impl ndrt:linear-f16-via-sgemm / "
            "ndrt:linear-bf16-via-sgemm). Gradient: linear_bp (give it this op's output y).",
            {"x", "w", "b"},
            {"y"},
            {attr_bool("transpose_w", false), attr_int("activation", 0), attr_float("alpha", 0.01)},
            infer_linear});
  r.define({"linear_bp",
            "Gradient of linear. Inputs: linear's inputs x, w, b, its OUTPUT y (after the activation) and the "
            "incoming gradient dy [N, M]; attributes as given to linear. Outputs dx [N, K], dw (w's shape and "
            "layout: [K, M], or [M, K] with transpose_w), db [M]. One pass computes dz = dy * act'(.) from y (relu "
            "and leaky_relu: where y > 0, so the derivative at 0 is the lower side's; sigmoid y(1 - y); tanh "
            "1 - y^2; none dz = dy) together with db = sum of dz over the rows (f64 partial sums added in a fixed "
            "order, independent of the thread count). gelu's derivative needs the pre-activation, which is "
            "recomputed as x @ W + b (one more GEMM; b is read only for gelu). Then dx = dz @ W^T and dw = x^T @ dz "
            "(dz^T @ x with transpose_w). dtypes f32, f64; f16, bf16 compute all of it in f32 from the 16-bit inputs "
            "(so dz reads the rounded y) and round dx, dw, db once each (impl ndrt:linear_bp-f16-via-sgemm / "
            "ndrt:linear_bp-bf16-via-sgemm).",
            {"x", "w", "b", "y", "dy"},
            {"dx", "dw", "db"},
            {attr_bool("transpose_w", false), attr_int("activation", 0), attr_float("alpha", 0.01)},
            infer_linear_bp});
}

}  // namespace ndrt
