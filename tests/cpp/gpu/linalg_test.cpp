// CUDA linalg kernels (cuBLAS + own epilogues) against the CPU ones on the same inputs: matmul,
// gemm, linear, linear_bp for every dtype; transposes; batch axes that broadcast (strided-batched
// and pointer-array cuBLAS paths); operands cuBLAS cannot read as they are (step slices, reversed);
// column-major views absorbed by the transpose flag; outputs given in place or as strided views;
// size 0, K = 0, alpha = 0, beta = 0 with NaN in c; an output past one grid.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;
using nt::Shape;

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// cuda_tol plus the reordering error of K-term dot products (cuBLAS and OpenBLAS sum in different
// orders; outputs near 0 after cancellation need an absolute allowance growing with K).
nt::Tol product_tol(ndrt_dtype d, int64_t K) {
  nt::Tol t = gt::cuda_tol(d);
  const double per = d == NDRT_F32 ? 2e-7 : d == NDRT_F64 ? 4e-16 : 0;
  t.atol = std::max(t.atol, per * double(K));
  return t;
}

Attrs mm_attrs(bool ta, bool tb) { return Attrs{{ta ? 1 : 0, tb ? 1 : 0}, {}}; }
Attrs gemm_attrs(bool ta, bool tb, double alpha, double beta) { return Attrs{{ta ? 1 : 0, tb ? 1 : 0}, {alpha, beta}}; }
Attrs lin_attrs(bool tw, int act, double slope = 0.01) { return Attrs{{tw ? 1 : 0, act}, {slope}}; }

std::string what(const std::string& op, ndrt_dtype d) { return op + " " + nt::dtype_str(d); }

TEST(CudaLinalg, MatmulEveryDtypeAndTranspose) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(101);
  const int64_t M = 37, K = 53, N = 29;  // odd sizes
  for (ndrt_dtype d : kFloats)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        SCOPED_TRACE(what("matmul", d) + " ta " + std::to_string(ta) + " tb " + std::to_string(tb));
        Pair a = gt::random_pair(d, ta ? Shape{K, M} : Shape{M, K}, rng);
        Pair b = gt::random_pair(d, tb ? Shape{N, K} : Shape{K, N}, rng);
        const nt::Tol tol = product_tol(d, K);
        gt::expect_same("matmul", {&a, &b}, mm_attrs(ta, tb), &tol);
      }
}

TEST(CudaLinalg, MatmulBatchedBroadcast) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(102);
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(what("matmul batched", d));
    const nt::Tol tol = product_tol(d, 23);
    // One stride per operand: strided-batched (b broadcasts with stride 0).
    Pair a = gt::random_pair(d, {5, 17, 23}, rng), b = gt::random_pair(d, {23, 19}, rng);
    gt::expect_same("matmul", {&a, &b}, mm_attrs(false, false), &tol);
    // [3, 1] x [4] batch axes: no single stride, pointer arrays.
    Pair a2 = gt::random_pair(d, {3, 1, 17, 23}, rng), b2 = gt::random_pair(d, {4, 19, 23}, rng);
    gt::expect_same("matmul", {&a2, &b2}, mm_attrs(false, true), &tol);
  }
}

TEST(CudaLinalg, MatmulNonContiguousOperands) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(103);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F16}) {
    SCOPED_TRACE(what("matmul views", d));
    const nt::Tol tol = product_tol(d, 20);
    // a: every other column (gaps in both axes: packed first); b: a transposed dense matrix
    // (column-major: read through the transpose flag).
    Pair a = gt::random_pair(d, {23, 40}, rng).slice(1, 0, 40, 2);
    Pair b = gt::random_pair(d, {31, 20}, rng).permute({1, 0});
    gt::expect_same("matmul", {&a, &b}, mm_attrs(false, false), &tol);
    // Reversed rows (negative stride: packed), permuted batch axis (uniform batch stride 20).
    Pair ar = gt::random_pair(d, {9, 20}, rng).slice(0, -1, -1000000, -1);
    Pair bb = gt::random_pair(d, {20, 3, 11}, rng).permute({1, 0, 2});  // [3, 20, 11]
    gt::expect_same("matmul", {&ar, &bb}, mm_attrs(false, false), &tol);
    // Broadcast rows (stride 0 inside the matrix): packed.
    Pair row = gt::random_pair(d, {1, 20}, rng).expand({6, 20});
    gt::expect_same("matmul", {&row, &b}, mm_attrs(false, false), &tol);
  }
}

TEST(CudaLinalg, MatmulEdgeSizes) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(104);
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(what("matmul edges", d));
    Pair a0 = gt::random_pair(d, {5, 0}, rng), b0 = gt::random_pair(d, {0, 7}, rng);  // K = 0: zeros
    gt::expect_same("matmul", {&a0, &b0}, mm_attrs(false, false));
    Pair a1 = gt::random_pair(d, {0, 4}, rng), b1 = gt::random_pair(d, {4, 3}, rng);  // M = 0
    gt::expect_same("matmul", {&a1, &b1}, mm_attrs(false, false));
    Pair a2 = gt::random_pair(d, {2, 0, 3, 4}, rng), b2 = gt::random_pair(d, {4, 5}, rng);  // empty batch
    gt::expect_same("matmul", {&a2, &b2}, mm_attrs(false, false));
    Pair a3 = gt::random_pair(d, {1, 1}, rng), b3 = gt::random_pair(d, {1, 1}, rng);  // 1 x 1
    gt::expect_same("matmul", {&a3, &b3}, mm_attrs(true, true));
    Pair a4 = gt::random_pair(d, {1, 9}, rng), b4 = gt::random_pair(d, {9, 1}, rng);  // row @ column
    gt::expect_same("matmul", {&a4, &b4}, mm_attrs(false, false));
  }
}

TEST(CudaLinalg, GemmAlphaBetaBroadcastC) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(105);
  const int64_t M = 21, K = 34, N = 15;
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(what("gemm", d));
    const nt::Tol tol = product_tol(d, K);
    Pair a = gt::random_pair(d, {M, K}, rng), b = gt::random_pair(d, {N, K}, rng);
    Pair row = gt::random_pair(d, {N}, rng), col = gt::random_pair(d, {M, 1}, rng);
    Pair full = gt::random_pair(d, {M, N}, rng);
    gt::expect_same("gemm", {&a, &b, &row}, gemm_attrs(false, true, 0.7, -1.3), &tol);
    gt::expect_same("gemm", {&a, &b, &col}, gemm_attrs(false, true, 1.0, 1.0), &tol);
    gt::expect_same("gemm", {&a, &b, &full}, gemm_attrs(false, true, -2.0, 0.5), &tol);
    // beta = 0 never reads c: NaN in c must not reach y.
    Pair nan_c = gt::values_pair(d, {M, N}, std::vector<double>(size_t(M * N), kNaN));
    gt::expect_same("gemm", {&a, &b, &nan_c}, gemm_attrs(false, true, 1.5, 0.0), &tol);
    // alpha = 0 and K = 0: y = beta c.
    gt::expect_same("gemm", {&a, &b, &row}, gemm_attrs(false, true, 0.0, 2.5), &tol);
    Pair ak = gt::random_pair(d, {M, 0}, rng), bk = gt::random_pair(d, {0, N}, rng);
    gt::expect_same("gemm", {&ak, &bk, &full}, gemm_attrs(false, false, 1.0, -0.5), &tol);
    gt::expect_same("gemm", {&ak, &bk, &full}, gemm_attrs(false, false, 1.0, 0.0), &tol);
    // Batched with a broadcast c.
    Pair ab = gt::random_pair(d, {3, M, K}, rng), bb = gt::random_pair(d, {3, K, N}, rng);
    gt::expect_same("gemm", {&ab, &bb, &row}, gemm_attrs(false, false, 1.0, 1.0), &tol);
  }
}

// y given as c's own view (in place), and as a transposed strided view of a poisoned buffer.
TEST(CudaLinalg, GemmInPlaceAndStridedOutput) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(106);
  const int64_t M = 19, K = 27, N = 13;
  const nt::Tol tol = product_tol(NDRT_F32, K);
  Pair a = gt::random_pair(NDRT_F32, {M, K}, rng), b = gt::random_pair(NDRT_F32, {K, N}, rng);
  Pair c = gt::random_pair(NDRT_F32, {M, N}, rng);
  nt::Tensor want;
  {
    gt::OnDevice on(NDRT_CPU);
    want = nt::run("gemm", {&a.cpu, &b.cpu, &c.cpu}, gemm_attrs(false, false, 0.5, 2.0));
  }
  {
    gt::OnDevice on(gt::kCuda0);
    std::vector<ndrt_handle> out = {c.gpu.get()};
    NT_CHECK(nt::exec("gemm", {a.gpu.get(), b.gpu.get(), c.gpu.get()}, out, gemm_attrs(false, false, 0.5, 2.0)));
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
  }
  nt::expect_close(nt::read_values(c.gpu), nt::read_values(want), NDRT_F32, tol, "gemm in place");

  // Output [M, N] = permuted rows of a [N, 2M] buffer, every other column: cuBLAS cannot write it.
  std::vector<uint8_t> poison = nt::poison_bytes(NDRT_F32, N * 2 * M);
  nt::Tensor big =
      gt::to_device(nt::from_bytes(NDRT_F32, {N, 2 * M}, poison.data(), poison.size(), NDRT_CPU), gt::kCuda0);
  nt::Tensor view = nt::permute(nt::slice(big, 1, 0, 2 * M, 2), {1, 0});  // [M, N]
  Pair c2 = gt::random_pair(NDRT_F32, {N}, rng);
  {
    gt::OnDevice on(NDRT_CPU);
    want = nt::run("gemm", {&a.cpu, &b.cpu, &c2.cpu}, gemm_attrs(false, false, 1.0, 1.0));
  }
  {
    gt::OnDevice on(gt::kCuda0);
    nt::run_into("gemm", {&a.gpu, &b.gpu, &c2.gpu}, view, gemm_attrs(false, false, 1.0, 1.0));
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
  }
  nt::expect_close(nt::read_values(view), nt::read_values(want), NDRT_F32, tol, "gemm into a view");
  const std::vector<double> all = nt::read_values(big);
  for (int64_t r = 0; r < N; ++r)
    for (int64_t j = 1; j < 2 * M; j += 2) EXPECT_TRUE(std::isnan(all[size_t(r * 2 * M + j)])) << "gap written";

  // matmul into a view too.
  {
    gt::OnDevice on(NDRT_CPU);
    want = nt::run("matmul", {&a.cpu, &b.cpu}, mm_attrs(false, false));
  }
  {
    gt::OnDevice on(gt::kCuda0);
    nt::run_into("matmul", {&a.gpu, &b.gpu}, view, mm_attrs(false, false));
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
  }
  nt::expect_close(nt::read_values(view), nt::read_values(want), NDRT_F32, tol, "matmul into a view");
}

TEST(CudaLinalg, LinearEveryActivationAndDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(107);
  const int64_t N = 33, K = 45, M = 27;
  for (ndrt_dtype d : kFloats)
    for (int tw = 0; tw < 2; ++tw)
      for (int act = 0; act <= 5; ++act) {
        SCOPED_TRACE(what("linear", d) + " tw " + std::to_string(tw) + " act " + std::to_string(act));
        const nt::Tol tol = product_tol(d, K);
        Pair x = gt::random_pair(d, {N, K}, rng), w = gt::random_pair(d, tw ? Shape{M, K} : Shape{K, M}, rng);
        Pair b = gt::random_pair(d, {M}, rng);
        gt::expect_same("linear", {&x, &w, &b}, lin_attrs(tw, act, 0.2), &tol);
      }
}

// linear_bp needs linear's own output y; it is computed on the CPU and copied, so both sides read
// the same y.
Pair linear_output(const Pair& x, const Pair& w, const Pair& b, const Attrs& a) {
  gt::OnDevice on(NDRT_CPU);
  return gt::pair_of(nt::run("linear", {&x.cpu, &w.cpu, &b.cpu}, a));
}

TEST(CudaLinalg, LinearBpEveryActivationAndDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(108);
  const int64_t N = 31, K = 22, M = 35;
  for (ndrt_dtype d : kFloats)
    for (int tw = 0; tw < 2; ++tw)
      for (int act = 0; act <= 5; ++act) {
        SCOPED_TRACE(what("linear_bp", d) + " tw " + std::to_string(tw) + " act " + std::to_string(act));
        const nt::Tol tol = product_tol(d, std::max(N, M));
        const Attrs a = lin_attrs(tw, act, 0.3);
        Pair x = gt::random_pair(d, {N, K}, rng), w = gt::random_pair(d, tw ? Shape{M, K} : Shape{K, M}, rng);
        Pair b = gt::random_pair(d, {M}, rng), dy = gt::random_pair(d, {N, M}, rng);
        Pair y = linear_output(x, w, b, a);
        gt::expect_same("linear_bp", {&x, &w, &b, &y, &dy}, a, &tol);
      }
}

TEST(CudaLinalg, LinearViewsAndEdges) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(109);
  for (ndrt_dtype d : {NDRT_F32, NDRT_BF16}) {
    SCOPED_TRACE(what("linear views", d));
    const nt::Tol tol = product_tol(d, 40);
    // x transposed (column-major), w every other column (packed), b a step-2 slice, dy reversed.
    Pair x = gt::random_pair(d, {24, 17}, rng).permute({1, 0});         // [17, 24]
    Pair w = gt::random_pair(d, {24, 26}, rng).slice(1, 0, 26, 2);     // [24, 13]
    Pair b = gt::random_pair(d, {26}, rng).slice(0, 0, 26, 2);         // [13]
    Pair dy = gt::random_pair(d, {17, 13}, rng).slice(0, -1, -1000000, -1);
    for (int act : {0, 1, 5}) {
      const Attrs a = lin_attrs(false, act);
      gt::expect_same("linear", {&x, &w, &b}, a, &tol);
      Pair y = linear_output(x, w, b, a);
      gt::expect_same("linear_bp", {&x, &w, &b, &y, &dy}, a, &tol);
    }
    // N = 0 (db = 0), K = 0 (y = act(b); dx, dw empty).
    for (int act : {0, 2, 5}) {
      const Attrs a = lin_attrs(true, act);
      Pair x0 = gt::random_pair(d, {0, 6}, rng), w0 = gt::random_pair(d, {5, 6}, rng);
      Pair b0 = gt::random_pair(d, {5}, rng);
      Pair y0 = linear_output(x0, w0, b0, a), dy0 = gt::random_pair(d, {0, 5}, rng);
      gt::expect_same("linear", {&x0, &w0, &b0}, a, &tol);
      gt::expect_same("linear_bp", {&x0, &w0, &b0, &y0, &dy0}, a, &tol);
      Pair xk = gt::random_pair(d, {4, 0}, rng), wk = gt::random_pair(d, {5, 0}, rng);
      Pair yk = linear_output(xk, wk, b0, a), dyk = gt::random_pair(d, {4, 5}, rng);
      gt::expect_same("linear", {&xk, &wk, &b0}, a, &tol);
      gt::expect_same("linear_bp", {&xk, &wk, &b0, &yk, &dyk}, a, &tol);
    }
  }
}

// y given as the left half of a wider poisoned buffer: row-major with row stride 2M, so the GEMM
// writes y in place and must use y's row stride (not M) as its leading dimension.
TEST(CudaLinalg, LinearIntoAColumnSlice) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(111);
  const int64_t N = 9, K = 14, M = 11;
  const nt::Tol tol = product_tol(NDRT_F32, K);
  for (int act : {0, 1}) {
    SCOPED_TRACE("act " + std::to_string(act));
    Pair x = gt::random_pair(NDRT_F32, {N, K}, rng), w = gt::random_pair(NDRT_F32, {K, M}, rng);
    Pair b = gt::random_pair(NDRT_F32, {M}, rng);
    nt::Tensor want;
    {
      gt::OnDevice on(NDRT_CPU);
      want = nt::run("linear", {&x.cpu, &w.cpu, &b.cpu}, lin_attrs(false, act));
    }
    std::vector<uint8_t> poison = nt::poison_bytes(NDRT_F32, N * 2 * M);
    nt::Tensor big =
        gt::to_device(nt::from_bytes(NDRT_F32, {N, 2 * M}, poison.data(), poison.size(), NDRT_CPU), gt::kCuda0);
    nt::Tensor view = nt::slice(big, 1, 0, M, 1);  // [N, M], strides (2M, 1)
    {
      gt::OnDevice on(gt::kCuda0);
      nt::run_into("linear", {&x.gpu, &w.gpu, &b.gpu}, view, lin_attrs(false, act));
      NT_CHECK(ndrt_synchronize(gt::kCuda0));
    }
    nt::expect_close(nt::read_values(view), nt::read_values(want), NDRT_F32, tol, "linear into a view");
    const std::vector<double> all = nt::read_values(big);
    for (int64_t r = 0; r < N; ++r)
      for (int64_t j = M; j < 2 * M; ++j) EXPECT_TRUE(std::isnan(all[size_t(r * 2 * M + j)])) << "outside written";
  }
}

// The epilogue over an output of more than 65536 x 256 elements: its grid-stride loop must cover it.
TEST(CudaLinalg, LinearPastOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(110);
  Pair x = gt::random_pair(NDRT_F32, {4097, 8}, rng), w = gt::random_pair(NDRT_F32, {8, 4100}, rng);
  Pair b = gt::random_pair(NDRT_F32, {4100}, rng);
  const nt::Tol tol = product_tol(NDRT_F32, 8);
  gt::expect_same("linear", {&x, &w, &b}, lin_attrs(false, 1), &tol);
}

}  // namespace
